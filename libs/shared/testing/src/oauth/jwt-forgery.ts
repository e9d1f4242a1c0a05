import { generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';

/** A compact JWS split into its decoded parts (no verification: this is for forging test tokens). */
export interface DecodedJwt {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  /** The signature segment as sent (base64url). */
  signature: string;
}

/** Decodes a compact JWS without verifying it. Throws when it is not three base64url JSON segments. */
export function decodeJwt(token: string): DecodedJwt {
  const parts = token.split('.');
  if (parts.length !== 3) throw new Error(`not a compact JWS (${parts.length} segments)`);
  const [header = '', payload = '', signature = ''] = parts;
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Record<string, unknown>,
    payload: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>,
    signature,
  };
}

function segment(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/**
 * The token with one byte of its signature flipped: header and claims untouched, so only the
 * signature check can refuse it.
 */
export function withFlippedSignatureByte(token: string, byteIndex = 7): string {
  const [header, payload, signature = ''] = token.split('.');
  const bytes = Buffer.from(signature, 'base64url');
  if (bytes.length === 0) throw new Error('the token has no signature to tamper with');
  const index = byteIndex % bytes.length;
  bytes[index] = (bytes[index] ?? 0) ^ 0x01;
  return `${header}.${payload}.${bytes.toString('base64url')}`;
}

/** The token's claims re-sent under `alg: none` with an empty signature (the classic downgrade). */
export function asUnsecuredJwt(token: string, overrides: { header?: Record<string, unknown>; payload?: Record<string, unknown> } = {}): string {
  const decoded = decodeJwt(token);
  const header = { ...decoded.header, alg: 'none', ...overrides.header };
  return `${segment(header)}.${segment({ ...decoded.payload, ...overrides.payload })}.`;
}

/**
 * The public half of an RS256 key as a JWKS, or a client's metadata document (`jwks`), publishes it.
 * A type alias, not an interface, so it is assignable where a JWK is typed with an index signature.
 */
export type PublicRsaJwk = {
  kty: 'RSA';
  n: string;
  e: string;
  kid: string;
  alg: 'RS256';
  use: 'sig';
};

/** An RSA key pair of the test's own, named by `kid`, with its public JWK. */
export interface TestSigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: PublicRsaJwk;
}

/**
 * A fresh RSA key pair (2048 bits) of the test's own. It is in no JWKS of the platform until the test
 * publishes `publicJwk` (a stand-in issuer's key set, a client's metadata document), so unpublished
 * it signs tokens the platform must refuse.
 */
export function generateTestSigningKey(kid = `test-key-${randomUUID()}`): TestSigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const { n, e } = publicKey.export({ format: 'jwk' });
  if (n === undefined || e === undefined) throw new Error('the generated key has no RSA modulus or exponent');
  return { kid, privateKey, publicKey, publicJwk: { kty: 'RSA', n, e, kid, alg: 'RS256', use: 'sig' } };
}

/** Signs a header and payload with RS256 (RSASSA-PKCS1-v1_5 with SHA-256) and the given private key. */
export function signRs256(header: Record<string, unknown>, payload: Record<string, unknown>, privateKey: KeyObject): string {
  const signingInput = `${segment({ ...header, alg: 'RS256' })}.${segment(payload)}`;
  const signature = sign('sha256', Buffer.from(signingInput, 'ascii'), privateKey).toString('base64url');
  return `${signingInput}.${signature}`;
}

/** The claims of an access token: `iss`, `aud`, `sub` required, any other added; a claim set to `undefined` is left out. */
export type AccessTokenClaims = { iss: string; aud: string | string[]; sub: string } & Record<string, unknown>;

/** Options of `mintAccessToken`. */
export interface MintAccessTokenOptions {
  /** The header's `typ` (default `at+jwt`; another value tests that a resource server refuses it). */
  typ?: string;
  /** `exp - iat` in seconds (default 600, the authorization server's default TTL). */
  lifetimeSeconds?: number;
  /** `iat` in seconds since the epoch (default now). */
  issuedAt?: number;
}

/**
 * An access token shaped as the platform's authorization server mints one (RFC 9068, design D2):
 * RS256, header `typ: at+jwt` and the key's `kid`, then `iat`, `exp` and a fresh `jti` unless
 * `claims` sets them. Signed with the key given: a stand-in issuer's published key, the server's own
 * private key (to test a resource server alone), or an unpublished one (a forgery).
 */
export function mintAccessToken(key: { kid: string; privateKey: KeyObject }, claims: AccessTokenClaims, options: MintAccessTokenOptions = {}): string {
  const issuedAt = options.issuedAt ?? Math.floor(Date.now() / 1_000);
  const payload = { iat: issuedAt, exp: issuedAt + (options.lifetimeSeconds ?? 600), jti: randomUUID(), ...claims };
  return signRs256({ typ: options.typ ?? 'at+jwt', kid: key.kid }, payload, key.privateKey);
}
