import { z } from 'zod';
import { booleanFlag, commaList, httpEnv, loadEnv, logEnv, natsEnv, trustProxyEnv } from '@mcp-platform/shared-config';
import { DEFAULT_LEGACY_SESSION_LIMITS, DEFAULT_LISTEN_STREAMS_PER_CALLER } from '../session-broker.options';
import { DEFAULT_TASK_OPERATIONS_PER_MINUTE } from '../session-broker.options';
import { parseRequestStateKeys } from './request-state-keys';

/** The MCP edge's keys, shared with the embedded host (`apps/standalone`), which serves the same edge. */
export const mcpEdgeEnv = {
  /** The base URL clients use (behind a proxy it differs from HOST:PORT); default `http://<HOST>:<PORT>`. */
  PUBLIC_URL: z.string().url().optional(),
  /** Allowed `Host` header values (`host:port`, `host:*`); default: PUBLIC_URL's host plus localhost/127.0.0.1/[::1] at PORT. */
  ALLOWED_HOSTS: commaList,
  /** Allowed `Origin` values (`scheme://host:port`, port may be `*`); default: PUBLIC_URL's origin plus the loopback origins at PORT. */
  ALLOWED_ORIGINS: commaList,
  /** Largest accepted POST body in bytes (413 above it). */
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(4 * 1024 * 1024),
  /** The SSE `retry` delay (ms) on resumable legacy streams: how long clients wait before reconnecting after the broker closed their connection. */
  SSE_RETRY_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  /**
   * Task operations (task-creating `tools/call`, `tasks/*`) one requester may make per minute on each
   * replica, in bursts of a tenth of that (at least 10); beyond it HTTP 429 with `Retry-After`. `0`: no limit.
   */
  TASK_OPERATIONS_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(DEFAULT_TASK_OPERATIONS_PER_MINUTE),
  /**
   * Legacy sessions one caller (a principal; an anonymous caller's IPv4 address or IPv6 /64) keeps: a new
   * one beyond it ends the caller's least recently used session.
   */
  LEGACY_SESSIONS_PER_CALLER: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_LEGACY_SESSION_LIMITS.perCaller),
  /** Legacy sessions one tenant keeps: a new one beyond it is refused (HTTP 429, `Retry-After`). */
  LEGACY_SESSIONS_PER_TENANT: z.coerce.number().int().min(1).max(10_000_000).default(DEFAULT_LEGACY_SESSION_LIMITS.perTenant),
  /** Legacy sessions the platform keeps in all (each broker replica mirrors them): a new one beyond it is refused (HTTP 503). */
  LEGACY_SESSIONS_MAX: z.coerce.number().int().min(1).max(10_000_000).default(DEFAULT_LEGACY_SESSION_LIMITS.total),
  /** `subscriptions/listen` streams one caller holds open on one replica: a new one beyond it ends the caller's oldest. */
  LISTEN_STREAMS_PER_CALLER: z.coerce.number().int().min(1).max(1_000_000).default(DEFAULT_LISTEN_STREAMS_PER_CALLER),
  /**
   * Whose `X-Forwarded-For` is believed for the client's address (what anonymous callers are counted
   * by): `false` (default), a hop count, proxy addresses/CIDRs, or `true` (every hop).
   */
  TRUST_PROXY: trustProxyEnv,
  /** The OAuth issuer whose access tokens the MCP endpoints accept (exactly the tokens' `iss`, no trailing slash). */
  AUTH_ISSUER: z.string().url().default('http://127.0.0.1:3101/oauth'),
  /**
   * Development switch: tenants whose protected servers accept anonymous callers. Off (empty) by
   * default; when set, the broker says so at WARN on every start.
   */
  DEV_ANONYMOUS_TENANTS: commaList,
};

/** The session broker's environment (`.env.example` beside the app lists every key). */
export const sessionBrokerEnv = {
  ...natsEnv,
  ...httpEnv(3000),
  ...logEnv,
  ...mcpEdgeEnv,
  /** Idle lifetime of a legacy session, in seconds. */
  SESSION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(30 * 24 * 3600)
    .default(24 * 3600),
  /**
   * Log every virtual server's MCP URL once the tool executor answers (how a person finds them in
   * `docker compose logs`). Off where something else prints them: `npm run start:cluster` does, in its
   * ready banner, which must stay the last thing printed.
   */
  ANNOUNCE_VIRTUAL_SERVERS: booleanFlag.default(true),
  /** This replica's route token for call notifications; random when absent. */
  REPLICA_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional(),
  /**
   * Keys sealing the modern `requestState`, comma-separated `<id>:<32 bytes in base64url>`: the first
   * seals, all open (rotation). The same on every replica; absent: a random key per process (WARN).
   */
  REQUEST_STATE_KEYS: commaList.check((context) => {
    try {
      parseRequestStateKeys(context.value);
    } catch (error) {
      context.issues.push({ code: 'custom', message: (error as Error).message, input: '(secret)' });
    }
  }),
};

export type SessionBrokerEnv = ReturnType<typeof loadSessionBrokerEnv>;

/** The one place this app reads `process.env`. */
export function loadSessionBrokerEnv(env: Record<string, string | undefined> = process.env) {
  return loadEnv(sessionBrokerEnv, env);
}
