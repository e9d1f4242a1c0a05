import type { DatabaseOptions } from '@mcp-platform/shared-persistence';

/** What the seed writes at boot; `false` writes nothing. */
export interface AuthorizationServerSeedOptions {
  /** The `demo` user's password, set again on every boot so the one shown to the operator works. */
  demoUserPassword: string;
  /** Log the demo password once at warn level (it was generated at boot, nobody else knows it). */
  logDemoUserPassword?: boolean;
}

/** How the authorization server runs. URLs are origins (or origins with a path prefix), without trailing slash. */
export interface AuthorizationServerOptions {
  database: DatabaseOptions;
  /** The app's public origin (`AUTH_PUBLIC_URL`); the issuer is `${publicUrl}/oauth`. */
  publicUrl: string;
  /** The session broker's public URL; MCP URLs (token audiences) are `${mcpPublicUrl}/<tenant>/<server>/mcp`. */
  mcpPublicUrl: string;
  /** Seed tenants `demo` and `conformance`, their built-in roles and the demo user. */
  seed: false | AuthorizationServerSeedOptions;
  /** A platform administrator created at boot when none exists yet. */
  bootstrapAdmin?: { username: string; password: string };
  /** Access token lifetime (default 600 s). */
  accessTokenTtlSeconds?: number;
  /** Refresh token lifetime (default 14 days). */
  refreshTokenTtlSeconds?: number;
  /** A signing key older than this is replaced by a new one (default 30 days). */
  keyRotationDays?: number;
  /**
   * Encrypts the private signing keys at rest (AES-256-GCM under a key derived from this secret).
   * Without it they are stored as plain JWKs in the database.
   */
  keyEncryptionSecret?: string;
  /** Client ID Metadata Documents: hosts exempt from the SSRF guard, an extra trusted CA (PEM). */
  cimd?: { allowedHosts?: string[]; caPem?: string };
  /** Trust `X-Forwarded-*` from a reverse proxy in front of the app. */
  trustProxy?: boolean;
  /** Largest raw resource upload the admin API takes, in bytes (default 16 MiB; the resource store has its own limit too). */
  adminUploadLimitBytes?: number;
}

/** The options with every default applied and the derived URLs, as `AUTHORIZATION_SERVER_OPTIONS` provides them. */
export interface ResolvedAuthorizationServerOptions extends Required<Omit<AuthorizationServerOptions, 'bootstrapAdmin' | 'keyEncryptionSecret' | 'cimd'>> {
  bootstrapAdmin: { username: string; password: string } | undefined;
  keyEncryptionSecret: string | undefined;
  cimd: { allowedHosts: string[]; caPem: string | undefined };
  /** `${publicUrl}/oauth`, exactly the `iss` of every token (S-158). */
  issuer: string;
  /** `${publicUrl}/admin/v1`: the admin API's base URL and the audience of its tokens. */
  adminAudience: string;
  /**
   * How long a retired signing key stays published: the longest lifetime of anything it signed
   * (access tokens, ID tokens of at most an hour) plus a margin for clock skew and caches.
   */
  retiredKeyOverlapSeconds: number;
}

/** Default access token lifetime. */
export const DEFAULT_ACCESS_TOKEN_TTL_SECONDS = 600;
/** Default refresh token lifetime: 14 days. */
export const DEFAULT_REFRESH_TOKEN_TTL_SECONDS = 14 * 24 * 3600;
/** Default body limit of the admin API's raw resource uploads: 16 MiB, the resource store's default per-resource limit. */
export const DEFAULT_ADMIN_UPLOAD_LIMIT_BYTES = 16 * 1024 * 1024;
/** Default signing key lifetime before rotation. */
export const DEFAULT_KEY_ROTATION_DAYS = 30;
/** The longest-lived JWT the provider signs besides access tokens (ID tokens), in seconds. */
export const ID_TOKEN_TTL_SECONDS = 3600;
/** Added to the overlap of retired keys: clock skew and key-set caches of resource servers. */
const RETIRED_KEY_MARGIN_SECONDS = 600;

/** Applies the defaults and derives the issuer and admin audience (trailing slashes removed). */
export function resolveAuthorizationServerOptions(options: AuthorizationServerOptions): ResolvedAuthorizationServerOptions {
  const publicUrl = withoutTrailingSlash(options.publicUrl);
  const accessTokenTtlSeconds = options.accessTokenTtlSeconds ?? DEFAULT_ACCESS_TOKEN_TTL_SECONDS;
  return {
    database: options.database,
    publicUrl,
    mcpPublicUrl: withoutTrailingSlash(options.mcpPublicUrl),
    seed: options.seed,
    bootstrapAdmin: options.bootstrapAdmin,
    accessTokenTtlSeconds,
    refreshTokenTtlSeconds: options.refreshTokenTtlSeconds ?? DEFAULT_REFRESH_TOKEN_TTL_SECONDS,
    keyRotationDays: options.keyRotationDays ?? DEFAULT_KEY_ROTATION_DAYS,
    keyEncryptionSecret: options.keyEncryptionSecret || undefined,
    cimd: { allowedHosts: options.cimd?.allowedHosts ?? [], caPem: options.cimd?.caPem },
    trustProxy: options.trustProxy ?? false,
    adminUploadLimitBytes: options.adminUploadLimitBytes ?? DEFAULT_ADMIN_UPLOAD_LIMIT_BYTES,
    issuer: `${publicUrl}/oauth`,
    adminAudience: `${publicUrl}/admin/v1`,
    retiredKeyOverlapSeconds: Math.max(accessTokenTtlSeconds, ID_TOKEN_TTL_SECONDS) + RETIRED_KEY_MARGIN_SECONDS,
  };
}

function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
