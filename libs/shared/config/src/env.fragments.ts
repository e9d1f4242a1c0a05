import { z } from 'zod';

/** An optional key where an empty value (`KEY=` in a .env file or compose) means "not set". */
const emptyAsUnset = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** How the apps reach NATS (distributed mode). */
export const natsEnv = {
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  /** Prefix of every JetStream bucket name, so runs sharing one NATS server never meet (tests). */
  NATS_BUCKET_PREFIX: z.string().regex(/^[A-Za-z0-9_-]*$/, 'letters, digits, _ and - only').default(''),
  /**
   * Prefix of every NATS subject and queue group (`<prefix>.<subject>`), so platforms sharing one NATS
   * server (staging and production, parallel test runs) never answer each other's requests. Empty: none.
   */
  NATS_SUBJECT_PREFIX: z.string().regex(/^[A-Za-z0-9_-]*$/, 'letters, digits, _ and - only').default(''),
  /**
   * How long the event log (JetStream stream `<prefix>MCP_EVENTS`) keeps the events of legacy SSE streams,
   * in seconds: a client can resume a stream with `Last-Event-ID` while the event it names is kept. The
   * same on every app (each brings the stream to its value when it starts).
   */
  EVENT_LOG_RETENTION_SECONDS: z.coerce.number().int().min(10).max(7 * 24 * 3600).default(15 * 60),
};

/** How the apps reach PostgreSQL (distributed mode); each app uses its own schema in this database. */
export const postgresEnv = {
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/mcp_platform'),
};

/** Where an app listens. Loopback by default (S-73); other addresses only by configuration. */
export function httpEnv(defaultPort: number) {
  return {
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: z.coerce.number().int().min(0).max(65535).default(defaultPort),
  };
}

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
  .transform((value) => (value ?? '').split(',').map((item) => item.trim()).filter(Boolean));

export { booleanFlag, commaList, emptyAsUnset };
