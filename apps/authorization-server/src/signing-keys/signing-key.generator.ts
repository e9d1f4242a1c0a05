import type * as Jose from 'jose' with { 'resolution-mode': 'import' };

/** A JSON Web Key as jose types it. */
export type Jwk = Jose.JWK;

/** The algorithm of every signing key: RS256, which every OAuth client and resource server verifies. */
export const SIGNING_ALG = 'RS256';

/** A new key: its id (the RFC 7638 thumbprint) and its private JWK. */
export interface GeneratedSigningKey {
  kid: string;
  alg: string;
  privateJwk: Jwk;
}

let josePromise: Promise<typeof Jose> | undefined;

/** jose is ESM-only; a dynamic import loads it from CommonJS (require(esm) once compiled). */
function loadJose(): Promise<typeof Jose> {
  josePromise ??= import('jose');
  return josePromise;
}

/** A fresh 2048-bit RSA key pair for RS256, exported as a private JWK with `kid`, `alg` and `use`. */
export async function generateSigningKey(): Promise<GeneratedSigningKey> {
  const jose = await loadJose();
  const { privateKey } = await jose.generateKeyPair(SIGNING_ALG, { modulusLength: 2048, extractable: true });
  const jwk = await jose.exportJWK(privateKey);
  const kid = await jose.calculateJwkThumbprint(jwk, 'sha256');
  return { kid, alg: SIGNING_ALG, privateJwk: { ...jwk, kid, alg: SIGNING_ALG, use: 'sig' } };
}

/** JWK members that belong to the private half of a key (RFC 7518 §6.3.2, §6.4). */
const PRIVATE_MEMBERS = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']);

/** The public half of a JWK: every member except the private ones. */
export function toPublicJwk(jwk: Jwk): Jwk {
  return Object.fromEntries(Object.entries(jwk).filter(([member]) => !PRIVATE_MEMBERS.has(member))) as Jwk;
}
