import { z } from 'zod';
import {
  booleanFlag,
  BOOTSTRAP_ADMIN_KEYS,
  bootstrapAdminEnv,
  commaList,
  emptyAsUnset,
  httpEnv,
  loadEnv,
  logEnv,
  natsEnv,
  postgresEnv,
} from '@mcp-platform/shared-config';
import { DEFAULT_ADMIN_UPLOAD_LIMIT_BYTES } from '../authorization-server.options';

const seconds = (fallback: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(fallback);

/** The authorization server's environment (`.env.example` beside the app lists every key). */
export const authorizationServerEnv = {
  ...natsEnv,
  ...postgresEnv,
  ...httpEnv(3101),
  ...logEnv,
  /** The public origin; the issuer is `${AUTH_PUBLIC_URL}/oauth`. Default: http://<HOST>:<PORT> (loopback when HOST is a wildcard). */
  AUTH_PUBLIC_URL: emptyAsUnset(z.string().url()),
  /** The session broker's public URL: MCP URLs, the token audiences, are `${MCP_PUBLIC_URL}/<tenant>/<server>/mcp`. */
  MCP_PUBLIC_URL: z.string().url().default('http://127.0.0.1:3000'),
  /** Writes tenants `demo` and `conformance`, their roles and the demo user at boot (idempotent). */
  SEED: booleanFlag.default(true),
  /** The demo user's password (12+ characters); without it a random one is generated and logged once at boot. */
  DEMO_USER_PASSWORD: emptyAsUnset(z.string().min(12, 'at least 12 characters')),
  /** A platform administrator created at boot when none exists (both or neither). */
  ...bootstrapAdminEnv,
  ACCESS_TOKEN_TTL_SECONDS: seconds(600, 60, 24 * 3600),
  REFRESH_TOKEN_TTL_SECONDS: seconds(14 * 24 * 3600, 300, 365 * 24 * 3600),
  KEY_ROTATION_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  /** Encrypts private signing keys at rest; without it they are stored as plain JWKs in the database. */
  AUTH_KEY_ENCRYPTION_SECRET: emptyAsUnset(z.string().min(16, 'at least 16 characters')),
  /** Hosts whose Client ID Metadata Documents may be fetched even on loopback/private addresses. */
  CIMD_ALLOWED_HOSTS: commaList,
  /** A PEM file with an extra CA trusted when fetching Client ID Metadata Documents (tests). */
  CIMD_CA_FILE: emptyAsUnset(z.string().min(1)),
  /** Trust `X-Forwarded-*` headers from a reverse proxy. */
  TRUST_PROXY: booleanFlag.default(false),
  /** Largest raw resource upload (`PUT …/resources/by-uri/content`) the admin API takes, in bytes (default 16 MiB). */
  ADMIN_UPLOAD_LIMIT_BYTES: z.coerce.number().int().positive().default(DEFAULT_ADMIN_UPLOAD_LIMIT_BYTES),
};

export type AuthorizationServerEnv = ReturnType<typeof loadAuthorizationServerEnv>;

/** The one place this app reads `process.env`. */
export function loadAuthorizationServerEnv(env: Record<string, string | undefined> = process.env) {
  const loaded = loadEnv(authorizationServerEnv, env, { together: [BOOTSTRAP_ADMIN_KEYS] });
  return { ...loaded, AUTH_PUBLIC_URL: loaded.AUTH_PUBLIC_URL ?? defaultPublicUrl(loaded.HOST, loaded.PORT) };
}

/** Where the app is reachable when no public URL is configured: its own listen address, loopback for a wildcard. */
export function defaultPublicUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
