import { z } from 'zod';
import { ConfigError } from './load-env';

/** An optional key where an empty value (`KEY=` in a .env file or compose) means "not set". */
const emptyAsUnset = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

const booleanFlag = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((value) => value === 'true' || value === '1' || value === 'yes');

/** How the apps reach NATS (distributed mode). */
export const natsEnv = {
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  /** Prefix of every JetStream bucket name, so runs sharing one NATS server never meet (tests). */
  NATS_BUCKET_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]*$/, 'letters, digits, _ and - only')
    .default(''),
  /**
   * Prefix of every NATS subject and queue group (`<prefix>.<subject>`), so platforms sharing one NATS
   * server (staging and production, parallel test runs) never answer each other's requests. Empty: none.
   */
  NATS_SUBJECT_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]*$/, 'letters, digits, _ and - only')
    .default(''),
  /**
   * How long the event log (JetStream stream `<prefix>MCP_EVENTS`) keeps the events of legacy SSE streams,
   * in seconds: a client can resume a stream with `Last-Event-ID` while the event it names is kept. The
   * same on every app (each brings the stream to its value when it starts).
   */
  EVENT_LOG_RETENTION_SECONDS: z.coerce
    .number()
    .int()
    .min(10)
    .max(7 * 24 * 3600)
    .default(15 * 60),
};

/** How the apps reach PostgreSQL (distributed mode); each app uses its own schema in this database. */
export const postgresEnv = {
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/mcp_platform'),
};

const seconds = (defaultValue: number, max: number) => z.coerce.number().int().min(1).max(max).default(defaultValue);

/**
 * Where an app listens (loopback by default, S-73; other addresses only by configuration), how its
 * HTTP server treats slow clients, and how long its work in flight gets at shutdown.
 */
export function httpEnv(defaultPort: number) {
  return {
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: z.coerce.number().int().min(0).max(65535).default(defaultPort),
    /** A request's headers must arrive within this many seconds of the connection (or of the previous request on it). */
    HTTP_HEADERS_TIMEOUT_SECONDS: seconds(10, 300),
    /** A whole request, body included, must arrive within this many seconds; answers (SSE streams) are not limited. */
    HTTP_REQUEST_TIMEOUT_SECONDS: seconds(30, 3_600),
    /** An idle keep-alive connection closes after this many seconds (keep it above a load balancer's idle timeout). */
    HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: seconds(65, 3_600),
    /**
     * At SIGTERM: how many seconds calls in flight get to finish before they end with an error (or, for
     * a broker in a cluster, a resumable close); keep it below the orchestrator's own grace (Kubernetes: 30).
     */
    SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(300).default(10),
  };
}

/** What `runService` takes of {@link httpEnv}: the HTTP server's timeouts and the shutdown grace, in milliseconds. */
export interface HttpServerSettings {
  httpTimeouts: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number };
  shutdownGraceMs: number;
}

/** The HTTP server's settings from a validated environment; the header timeout may not exceed the request timeout. */
export function httpServerSettings(env: {
  HTTP_HEADERS_TIMEOUT_SECONDS: number;
  HTTP_REQUEST_TIMEOUT_SECONDS: number;
  HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: number;
  SHUTDOWN_GRACE_SECONDS: number;
}): HttpServerSettings {
  if (env.HTTP_HEADERS_TIMEOUT_SECONDS > env.HTTP_REQUEST_TIMEOUT_SECONDS) {
    throw new ConfigError([
      `HTTP_HEADERS_TIMEOUT_SECONDS: ${env.HTTP_HEADERS_TIMEOUT_SECONDS} exceeds HTTP_REQUEST_TIMEOUT_SECONDS (${env.HTTP_REQUEST_TIMEOUT_SECONDS}); the headers are part of the request`,
    ]);
  }
  return {
    httpTimeouts: {
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_SECONDS * 1_000,
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_SECONDS * 1_000,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS * 1_000,
    },
    shutdownGraceMs: env.SHUTDOWN_GRACE_SECONDS * 1_000,
  };
}

/**
 * Whose word on the client's address (`X-Forwarded-For`) is taken, as Fastify's `trustProxy` takes it:
 * nobody (`false`, the default: the connection's peer is the client), the proxies at these addresses or
 * CIDR ranges (comma-separated: the rightmost address none of them added is the client), or every hop
 * (`true`: only behind a proxy that overwrites the header, since a client can write its own). The
 * boolean spellings of `booleanFlag` are accepted too.
 */
export const trustProxyEnv = z
  .string()
  .optional()
  .transform((value, context): boolean | string[] => {
    const text = (value ?? '').trim().toLowerCase();
    if (['', 'false', '0', 'no'].includes(text)) return false;
    if (['true', '1', 'yes'].includes(text)) return true;
    const entries = text
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    const bad = entries.filter((entry) => !/^[0-9a-f:.]+(\/\d{1,3})?$/.test(entry));
    if (bad.length > 0) context.addIssue({ code: 'custom', message: `not an address or CIDR range: ${bad.join(', ')} (or true, or false)` });
    return entries;
  });

/** Logging. */
export const logEnv = {
  LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  /** `json` lines or `pretty` (one readable line a record); absent: pretty on a terminal, JSON otherwise. */
  LOG_FORMAT: emptyAsUnset(z.enum(['json', 'pretty'])),
};

/**
 * The first platform admin, created at boot when none exists (the apps that hold users: the
 * authorization server, and the embedded host). Both keys or neither: pass `BOOTSTRAP_ADMIN_KEYS` to
 * `loadEnv`'s `together`, so one without the other fails the start instead of being ignored.
 */
export const bootstrapAdminEnv = {
  ADMIN_USERNAME: emptyAsUnset(z.string().min(1)),
  ADMIN_PASSWORD: emptyAsUnset(z.string().min(12, 'at least 12 characters')),
};

/** The keys of `bootstrapAdminEnv`, set together or not at all. */
export const BOOTSTRAP_ADMIN_KEYS = ['ADMIN_USERNAME', 'ADMIN_PASSWORD'] as const;

/** A comma-separated list; absent or empty means an empty list. */
const commaList = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  );

export { booleanFlag, commaList, emptyAsUnset };
