import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

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

/** An RSA key pair of the test's own (never in any JWKS of the platform). */
export function generateTestSigningKey(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('rsa', { modulusLength: 2048 });
}

/** Signs a header and payload with RS256 (RSASSA-PKCS1-v1_5 with SHA-256) and the given private key. */
export function signRs256(header: Record<string, unknown>, payload: Record<string, unknown>, privateKey: KeyObject): string {
  const signingInput = `${segment({ ...header, alg: 'RS256' })}.${segment(payload)}`;
  const signature = sign('sha256', Buffer.from(signingInput, 'ascii'), privateKey).toString('base64url');
  return `${signingInput}.${signature}`;
}
