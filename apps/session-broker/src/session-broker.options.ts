import { randomBytes } from 'node:crypto';
import { parseRequestStateKeys, type RequestStateKey } from './config/request-state-keys';

/** How the session broker is configured, by its own process or by the embedded host. */
export interface SessionBrokerOptions {
  /** Base URL clients reach the platform at, e.g. `http://127.0.0.1:3000` (no trailing slash needed). */
  publicUrl: string;
  /** Allowed `Host` values: `host:port`, or `host:*` for any port (DNS-rebinding defence, S-72). */
  allowedHosts: string[];
  /** Allowed `Origin` values: `scheme://host:port`, port may be `*`. Requests without Origin pass. */
  allowedOrigins: string[];
  /** Largest accepted POST body in bytes (413 above it). */
  bodyLimitBytes: number;
  /** This replica's route token (`[A-Za-z0-9_-]`); random when absent. */
  replicaId?: string;
  /** Idle lifetime of a legacy session in seconds (default one day). */
  sessionTtlSeconds?: number;
  /** How many legacy sessions are let in: per caller, per tenant, in all (defaults: {@link DEFAULT_LEGACY_SESSION_LIMITS}). */
  legacySessionLimits?: Partial<LegacySessionLimits>;
  /** `subscriptions/listen` streams one caller holds on a replica; beyond it their oldest ends (default {@link DEFAULT_LISTEN_STREAMS_PER_CALLER}). */
  listenStreamsPerCaller?: number;
  /**
   * The SSE `retry` delay sent on resumable streams (S-81), in milliseconds (default 1000): how long a
   * client waits before reconnecting after the broker closed its connection (polling, shutdown).
   */
  sseRetryMs?: number;
  /**
   * Task operations (task-creating `tools/call`, `tasks/*`) one requester may make per minute on this
   * replica (default 6000); bursts of a tenth of that (at least 10) pass at once, beyond it HTTP 429 with
   * `Retry-After` (S-291). `0` turns the limit off.
   */
  taskOperationsPerMinute?: number;
  /**
   * At shutdown, hand calls whose clients can resume their streams to the other replicas at once (close
   * them with `retry`; the executor finishes the call and any replica replays it, S-90), rather than
   * wait for them (default true: the distributed mode). The embedded host sets it false: its executor
   * stops with it and no other replica exists, so its calls finish within the grace or end with an error.
   */
  drainHandsOff?: boolean;
  /** Log the MCP URL of every virtual server once the executor answers (default true). */
  announceVirtualServers?: boolean;
  /** The version reported in `serverInfo` (default the platform's). */
  serverVersion?: string;
  /**
   * Keys sealing the modern era's `requestState` (multi round-trip requests), `<id>:<32 bytes in
   * base64url>`: the first seals, every one opens (rotation). Every replica behind one MCP URL needs
   * the same list. Absent: a random key of this process (logged at WARN), enough for one replica.
   */
  requestStateKeys?: string[];
  /** The broker as an OAuth resource server. */
  auth: SessionBrokerAuthOptions;
}

/**
 * Caps on the legacy sessions the platform keeps (each lives in the shared bucket and in every broker
 * replica's mirror for the session TTL), counted cluster-wide from the mirror.
 */
export interface LegacySessionLimits {
  /**
   * Per caller (a principal: tenant, subject, OAuth client; an anonymous caller: its network). A new
   * session beyond it ends the caller's least recently used one, so a client that never sends DELETE
   * is not locked out; it only ever ends the caller's own sessions.
   */
  perCaller: number;
  /** Per tenant: a new session beyond it is refused (HTTP 429), so no tenant's callers fill the platform. */
  perTenant: number;
  /** In all: a new session beyond it is refused (HTTP 503); it also bounds each replica's mirror. */
  total: number;
}

/**
 * Room for a person's IDE windows and agents, and for clients that open a session per connection and
 * never end it (the oldest go); a tenant's worth of those; and what a replica holds in about 100 MB (a
 * kept session is under 600 bytes of JSON, about 2 KB in memory with its mirror and census entries).
 */
export const DEFAULT_LEGACY_SESSION_LIMITS: LegacySessionLimits = { perCaller: 100, perTenant: 10_000, total: 50_000 };

/**
 * `subscriptions/listen` streams one caller holds open on one replica: a client needs one per server,
 * so a hundred is room for a person's every client, and bounds one address to about 1.5 MB a replica.
 */
export const DEFAULT_LISTEN_STREAMS_PER_CALLER = 100;

/** Who issues the tokens the broker accepts, and the development escape hatch. */
export interface SessionBrokerAuthOptions {
  /**
   * The authorization server's issuer, exactly as tokens carry it in `iss` (e.g.
   * `http://127.0.0.1:3101/oauth`); advertised in every Protected Resource Metadata document.
   */
  issuer: string;
  /**
   * Development only: tenants whose protected servers accept callers without a token (as the
   * anonymous principal). Empty by default; a non-empty list is logged at WARN at start.
   */
  anonymousTenants?: string[];
}

/** Options with every default applied. */
export interface ResolvedSessionBrokerOptions extends Required<Omit<SessionBrokerOptions, 'replicaId' | 'auth' | 'requestStateKeys' | 'legacySessionLimits'>> {
  replicaId: string;
  legacySessionLimits: LegacySessionLimits;
  /** Parsed; empty when none were configured. */
  requestStateKeys: RequestStateKey[];
  auth: Required<SessionBrokerAuthOptions>;
}

/**
 * The default allowance of task operations per requester and minute (100 a second, bursts of 600): room
 * for a client polling dozens of long tasks every second, not for a runaway loop.
 */
export const DEFAULT_TASK_OPERATIONS_PER_MINUTE = 6_000;

export const SESSION_BROKER_OPTIONS = Symbol('SESSION_BROKER_OPTIONS');

export const PLATFORM_VERSION = '0.1.0';

export function resolveSessionBrokerOptions(options: SessionBrokerOptions): ResolvedSessionBrokerOptions {
  const replicaId = options.replicaId ?? `broker-${randomBytes(6).toString('hex')}`;
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(replicaId)) throw new Error(`invalid replicaId: ${replicaId}`);
  if (!URL.canParse(options.auth.issuer)) throw new Error(`invalid auth.issuer: ${options.auth.issuer}`);
  const legacySessionLimits = { ...DEFAULT_LEGACY_SESSION_LIMITS, ...options.legacySessionLimits };
  for (const [name, value] of Object.entries(legacySessionLimits)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`invalid legacySessionLimits.${name}: ${value}`);
  }
  return {
    publicUrl: options.publicUrl.replace(/\/+$/, ''),
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    bodyLimitBytes: options.bodyLimitBytes,
    replicaId,
    sessionTtlSeconds: options.sessionTtlSeconds ?? 24 * 3600,
    legacySessionLimits,
    listenStreamsPerCaller: positiveInteger('listenStreamsPerCaller', options.listenStreamsPerCaller ?? DEFAULT_LISTEN_STREAMS_PER_CALLER),
    sseRetryMs: options.sseRetryMs ?? 1_000,
    taskOperationsPerMinute: options.taskOperationsPerMinute ?? DEFAULT_TASK_OPERATIONS_PER_MINUTE,
    drainHandsOff: options.drainHandsOff ?? true,
    announceVirtualServers: options.announceVirtualServers ?? true,
    serverVersion: options.serverVersion ?? PLATFORM_VERSION,
    requestStateKeys: parseRequestStateKeys(options.requestStateKeys ?? []),
    // The issuer is compared exactly with `iss`, so it is kept exactly as configured.
    auth: { issuer: options.auth.issuer, anonymousTenants: [...new Set(options.auth.anonymousTenants ?? [])] },
  };
}

/**
 * The default allow-lists for a public URL: its own host and origin, plus the loopback names at
 * the same port, so `localhost` and `127.0.0.1` both work on a laptop.
 */
export function defaultAllowLists(publicUrl: string, port: number): { allowedHosts: string[]; allowedOrigins: string[] } {
  const url = new URL(publicUrl);
  const publicPort = url.port || (url.protocol === 'https:' ? '443' : '80');
  const hosts = new Set<string>([`${url.hostname}:${publicPort}`.toLowerCase()]);
  const origins = new Set<string>([url.origin.toLowerCase()]);
  if (!url.port) hosts.add(url.hostname.toLowerCase());
  for (const loopback of ['localhost', '127.0.0.1', '[::1]']) {
    hosts.add(`${loopback}:${port}`);
    origins.add(`http://${loopback}:${port}`);
  }
  return { allowedHosts: [...hosts], allowedOrigins: [...origins] };
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`invalid ${name}: ${value}`);
  return value;
}
