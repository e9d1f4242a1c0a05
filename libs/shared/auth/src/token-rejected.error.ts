/**
 * Why an access token was refused. Stable codes: a resource server maps each one to its answer
 * (all of them are `401 invalid_token` at an HTTP edge, S-141), tests assert on them, and logs carry
 * them instead of the token (S-147).
 */
export const TokenRejectionReason = {
  /** Not a compact JWS, undecodable, or a required claim (`sub`, `exp`) missing or of the wrong type. */
  Malformed: 'malformed',
  /** The signature does not verify against the key the token names. */
  BadSignature: 'bad_signature',
  /** The token names a key (`kid`) the authorization server does not publish, even after a refresh. */
  UnknownKey: 'unknown_key',
  /** `iss` is not exactly the authorization server's issuer. */
  WrongIssuer: 'wrong_issuer',
  /** `aud` does not name this resource (RFC 8707, S-140). */
  WrongAudience: 'wrong_audience',
  /** `exp` has passed (beyond the clock tolerance). */
  Expired: 'expired',
  /** `nbf` or `iat` lies in the future (beyond the clock tolerance). */
  NotYetValid: 'not_yet_valid',
  /** The JOSE header's `typ` is not `at+jwt` (RFC 9068 §4): an ID token or another JWT is not an access token. */
  WrongType: 'wrong_type',
  /** The JOSE header's `alg` is not on the allow-list (never `none`, never an HMAC). */
  UnsupportedAlg: 'unsupported_alg',
} as const;
export type TokenRejectionReason = (typeof TokenRejectionReason)[keyof typeof TokenRejectionReason];

/**
 * An access token was refused. The message says why in words that are safe to show to the caller
 * (it never repeats the token or its claims); `reason` is the machine-readable code.
 */
export class TokenRejectedError extends Error {
  override readonly name = 'TokenRejectedError';

  constructor(
    readonly reason: TokenRejectionReason,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The key set could not be fetched (the authorization server did not answer). Not the token's fault:
 * a resource server answers 503 and the client retries, rather than throwing the token away.
 */
export class KeySetUnavailableError extends Error {
  override readonly name = 'KeySetUnavailableError';

  constructor(cause: unknown) {
    super('the authorization server’s signing keys are unavailable', { cause });
  }
}
