import type * as Jose from 'jose' with { 'resolution-mode': 'import' };
import type { authorizationServer } from '@mcp-platform/protocol-contracts';
import { KeySetUnavailableError, TokenRejectedError, TokenRejectionReason } from './token-rejected.error';

/** A public signing key as the authorization server publishes it (never with private members). */
export type PublicJwk = authorizationServer.PublicJwk;

/** The authorization server's issuer and the keys that verify its tokens (current and recently retired). */
export interface SigningKeySet {
  issuer: string;
  keys: PublicJwk[];
}

/** How an `AccessTokenVerifier` gets its keys and judges time. */
export interface AccessTokenVerifierOptions {
  /** Fetches the issuer and its current public keys (over the bus, `authorizationServer.listSigningKeys`). */
  keySource: () => Promise<SigningKeySet>;
  /** Allowed clock skew for `exp`, `nbf` and `iat`, in seconds (default 5). */
  clockToleranceSeconds?: number;
  /** A token naming an unknown `kid` refetches the key set at most this often (default 10 000 ms). */
  minRefreshIntervalMs?: number;
  /** The clock, in milliseconds since the epoch (tests pass a fixed one). */
  now?: () => number;
  /**
   * How many verified tokens to remember (default 1 000; `0` turns the cache off). A token seen again
   * skips the header parse and the signature check but not `exp` nor `aud`; see `AccessTokenVerifier`.
   */
  verifiedTokenCacheSize?: number;
}

/** What a verified access token says about its caller (RFC 9068 claims, read once). */
export interface VerifiedAccessToken {
  /** `sub`: the user's id, or the client's id for a client-credentials token. */
  subject: string;
  /** `client_id`: the OAuth client the token was issued to. */
  clientId?: string;
  /** `tenant`: the caller's tenant (absent only on a platform admin's admin-API token). */
  tenant?: string;
  /** `tenant_id`: the tenant's immutable id, which a tenant created again with the same slug does not share. */
  tenantId?: string;
  /** `scope`, split: the granted scopes, each once. */
  scopes: string[];
  /**
   * `obtainable_scope`, split: the scopes of this resource the caller could hold by asking again (the
   * granted ones included), so tools behind a step-up can be listed (issue 13 item 13). Absent when the
   * token does not say (admin-API tokens, tokens minted before the claim existed): nothing beyond `scopes`.
   */
  obtainableScopes?: string[];
  /** `roles` (admin-API tokens), empty when absent. */
  roles: string[];
  /** `exp`, in milliseconds since the epoch. */
  expiresAt: number;
  /** `iat`, in milliseconds since the epoch (absent when the token has none). */
  issuedAt?: number;
  /** `aud`, always as a list. */
  audience: string[];
}

/**
 * Signature algorithms a token may use: asymmetric only. `none` and the HMAC family are never
 * accepted, so a public key can never be abused as an HMAC secret.
 */
export const ACCEPTED_ALGORITHMS = ['RS256', 'PS256', 'ES256'] as const;

const DEFAULT_CLOCK_TOLERANCE_SECONDS = 5;
const DEFAULT_MIN_REFRESH_INTERVAL_MS = 10_000;
const DEFAULT_VERIFIED_TOKEN_CACHE_SIZE = 1_000;
/** Bound of the expected-audience → canonical form map (one entry per virtual server in practice). */
const CANONICAL_AUDIENCE_CACHE_SIZE = 1_000;

interface CachedKeySet {
  issuer: string;
  keys: ReturnType<typeof Jose.createLocalJWKSet>;
}

/** A token that passed every check once: what it says, and what it must still be checked against. */
interface VerifiedEntry {
  /** The key set it verified with: an entry counts only while that set is the current one. */
  keySet: CachedKeySet;
  claims: VerifiedAccessToken;
  /** `exp` in seconds, as signed. */
  exp: number;
  /** `aud`, each entry in canonical form (`canonicalResource`). */
  canonicalAudience: string[];
}

let josePromise: Promise<typeof Jose> | undefined;

/** jose is ESM-only; a dynamic import loads it from CommonJS (require(esm) once compiled). */
function loadJose(): Promise<typeof Jose> {
  return (josePromise ??= import('jose'));
}

/**
 * Verifies JWT access tokens (RFC 9068) issued by the platform's authorization server, locally, against
 * a cached copy of its signing keys. Framework-free: the session broker and the admin API each build
 * one with their own key source. Order of checks: header (`alg` allow-list, `typ`), signature, `iss`,
 * time (`exp` required, `nbf`, `iat`), `aud`, then the claims it returns. A token never appears in an
 * error message or a log line (S-147).
 *
 * Clients send the same token on every request until it expires, and a signature check costs far
 * more than the rest of a request, so tokens that passed are remembered (a bounded LRU keyed by the
 * whole token string, successes only). A remembered token is still refused once `exp` has passed
 * (same clock tolerance) and for any other audience; it is forgotten as soon as the key set it was
 * verified with is replaced (`invalidateKeys` on rotation, or a refetch for an unknown `kid`), so a
 * retired key stops being honoured at once. Nothing the token says is trusted without its signature
 * having been checked against the current keys.
 */
export class AccessTokenVerifier {
  private readonly keySource: () => Promise<SigningKeySet>;
  private readonly clockToleranceSeconds: number;
  private readonly minRefreshIntervalMs: number;
  private readonly now: () => number;
  private cached: CachedKeySet | undefined;
  private inflight: Promise<CachedKeySet> | undefined;
  /** When a token's unknown `kid` last triggered a refetch (cold loads do not count). */
  private lastRefreshAt = Number.NEGATIVE_INFINITY;
  /** Bumped by `invalidateKeys`, so a fetch that started before it does not repopulate the cache. */
  private generation = 0;
  private readonly verifiedTokenCacheSize: number;
  /** Tokens that passed every check, oldest use first (a Map keeps insertion order: an LRU). */
  private readonly verified = new Map<string, VerifiedEntry>();
  private readonly canonicalAudiences = new Map<string, string>();

  constructor(options: AccessTokenVerifierOptions) {
    this.keySource = options.keySource;
    this.clockToleranceSeconds = options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
    this.minRefreshIntervalMs = options.minRefreshIntervalMs ?? DEFAULT_MIN_REFRESH_INTERVAL_MS;
    this.now = options.now ?? Date.now;
    this.verifiedTokenCacheSize = Math.max(0, options.verifiedTokenCacheSize ?? DEFAULT_VERIFIED_TOKEN_CACHE_SIZE);
  }

  /**
   * The token's claims when it is valid for `audience`; otherwise a `TokenRejectedError`
   * (`KeySetUnavailableError` when the keys cannot be fetched at all).
   */
  async verify(token: string, expected: { audience: string }): Promise<VerifiedAccessToken> {
    const remembered = this.remembered(token);
    if (remembered !== undefined) {
      this.checkAudience(remembered.canonicalAudience, expected.audience);
      return copyClaims(remembered.claims);
    }
    const jose = await loadJose();
    checkHeader(jose, token);
    let keySet = await this.currentKeys();
    let verified: Jose.JWTVerifyResult;
    try {
      verified = await this.verifyWith(jose, token, keySet);
    } catch (error) {
      if (!(error instanceof jose.errors.JWKSNoMatchingKey)) throw rejection(jose, error);
      // The token names a key we do not hold: the authorization server may have rotated.
      const refreshed = await this.refreshForUnknownKey(keySet);
      if (!refreshed) throw new TokenRejectedError(TokenRejectionReason.UnknownKey, 'the token is signed with an unknown key');
      keySet = refreshed;
      try {
        verified = await this.verifyWith(jose, token, keySet);
      } catch (retryError) {
        throw rejection(jose, retryError);
      }
    }
    const { claims, canonicalAudience } = this.readClaims(verified.payload, expected.audience);
    this.remember(token, { keySet, claims, exp: verified.payload.exp as number, canonicalAudience });
    return copyClaims(claims);
  }

  /** Drops the cached key set (a `signingKeysRotated` event) and every token verified with it: the next verification fetches afresh. */
  invalidateKeys(): void {
    this.generation++;
    this.cached = undefined;
    this.inflight = undefined;
    this.verified.clear();
  }

  /**
   * The entry of a token verified before, while it may still be used: verified with the current key
   * set and not expired. An expired or stale entry is dropped, so the full check runs (and says why).
   */
  private remembered(token: string): VerifiedEntry | undefined {
    const entry = this.verified.get(token);
    if (entry === undefined) return undefined;
    // The same test as jose's: expired when exp <= now - tolerance, in whole seconds.
    const nowSeconds = Math.floor(this.now() / 1_000);
    if (entry.keySet !== this.cached || entry.exp <= nowSeconds - this.clockToleranceSeconds) {
      this.verified.delete(token);
      return undefined;
    }
    // Most recently used last: eviction takes the first.
    this.verified.delete(token);
    this.verified.set(token, entry);
    return entry;
  }

  private remember(token: string, entry: VerifiedEntry): void {
    // Only while its key set is still the current one (a rotation may have landed meanwhile).
    if (this.verifiedTokenCacheSize === 0 || entry.keySet !== this.cached) return;
    this.verified.delete(token);
    while (this.verified.size >= this.verifiedTokenCacheSize) {
      const oldest = this.verified.keys().next();
      if (oldest.done === true) break;
      this.verified.delete(oldest.value);
    }
    this.verified.set(token, entry);
  }

  /** spec S-140: only tokens issued for this resource; scheme and host compare case-insensitively. */
  private checkAudience(canonicalAudience: readonly string[], expectedAudience: string): void {
    const wanted = this.canonicalAudience(expectedAudience);
    if (!canonicalAudience.includes(wanted)) {
      throw new TokenRejectedError(TokenRejectionReason.WrongAudience, 'the token was not issued for this resource');
    }
  }

  /** `canonicalResource` of an expected audience, remembered: it is one of a few resource URLs, asked for on every request. */
  private canonicalAudience(value: string): string {
    let canonical = this.canonicalAudiences.get(value);
    if (canonical === undefined) {
      canonical = canonicalResource(value);
      if (this.canonicalAudiences.size >= CANONICAL_AUDIENCE_CACHE_SIZE) this.canonicalAudiences.clear();
      this.canonicalAudiences.set(value, canonical);
    }
    return canonical;
  }

  private verifyWith(jose: typeof Jose, token: string, keySet: CachedKeySet): Promise<Jose.JWTVerifyResult> {
    return jose.jwtVerify(token, keySet.keys, {
      algorithms: [...ACCEPTED_ALGORITHMS],
      issuer: keySet.issuer,
      requiredClaims: ['exp'],
      clockTolerance: this.clockToleranceSeconds,
      currentDate: new Date(this.now()),
    });
  }

  private readClaims(payload: Jose.JWTPayload, expectedAudience: string): { claims: VerifiedAccessToken; canonicalAudience: string[] } {
    const nowSeconds = this.now() / 1_000;
    // jose checks `iat` against the clock only with maxTokenAge; a token minted in the future is not valid yet.
    if (typeof payload.iat === 'number' && payload.iat > nowSeconds + this.clockToleranceSeconds) {
      throw new TokenRejectedError(TokenRejectionReason.NotYetValid, 'the token was issued in the future');
    }
    const audience = typeof payload.aud === 'string' ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud : [];
    const canonicalAudience = audience.filter((entry): entry is string => typeof entry === 'string').map(canonicalResource);
    this.checkAudience(canonicalAudience, expectedAudience);
    if (typeof payload.sub !== 'string' || payload.sub.length === 0) throw malformed('the token has no subject');
    const clientId = optionalString(payload, 'client_id');
    const tenant = optionalString(payload, 'tenant');
    const tenantId = optionalString(payload, 'tenant_id');
    const scope = optionalString(payload, 'scope');
    const obtainable = optionalString(payload, 'obtainable_scope');
    const roles = payload['roles'];
    if (roles !== undefined && (!Array.isArray(roles) || roles.some((role) => typeof role !== 'string'))) {
      throw malformed('the token’s roles claim is not a list of strings');
    }
    const claims: VerifiedAccessToken = {
      subject: payload.sub,
      ...(clientId === undefined ? {} : { clientId }),
      ...(tenant === undefined ? {} : { tenant }),
      ...(tenantId === undefined ? {} : { tenantId }),
      scopes: scope === undefined ? [] : splitScopes(scope),
      ...(obtainable === undefined ? {} : { obtainableScopes: splitScopes(obtainable) }),
      roles: (roles as string[] | undefined) ?? [],
      expiresAt: (payload.exp as number) * 1_000,
      ...(typeof payload.iat === 'number' ? { issuedAt: payload.iat * 1_000 } : {}),
      audience,
    };
    return { claims, canonicalAudience };
  }

  private currentKeys(): Promise<CachedKeySet> {
    return this.cached ? Promise.resolve(this.cached) : this.fetchKeys();
  }

  /**
   * A fresher key set than `used`, or `undefined` when none may be fetched yet. Another request may
   * already have refreshed it, or a fetch may be under way; otherwise a refetch happens only if the
   * last one an unknown `kid` caused is `minRefreshIntervalMs` old, so a flood of tokens with made-up
   * key ids costs the authorization server at most one look-up per interval.
   */
  private async refreshForUnknownKey(used: CachedKeySet): Promise<CachedKeySet | undefined> {
    if (this.cached && this.cached !== used) return this.cached;
    if (this.inflight) return this.inflight;
    const now = this.now();
    if (now - this.lastRefreshAt < this.minRefreshIntervalMs) return undefined;
    this.lastRefreshAt = now;
    return this.fetchKeys();
  }

  private async fetchKeys(): Promise<CachedKeySet> {
    if (this.inflight) return this.inflight;
    const generation = this.generation;
    const fetching = (async () => {
      const jose = await loadJose();
      let source: SigningKeySet;
      try {
        source = await this.keySource();
      } catch (error) {
        throw new KeySetUnavailableError(error);
      }
      const keySet: CachedKeySet = { issuer: source.issuer, keys: jose.createLocalJWKSet({ keys: source.keys as Jose.JWK[] }) };
      if (generation === this.generation) this.cached = keySet;
      return keySet;
    })();
    this.inflight = fetching;
    try {
      return await fetching;
    } finally {
      if (this.inflight === fetching) this.inflight = undefined;
    }
  }
}

/**
 * The JOSE header, checked before any key is touched: a compact JWS (three parts), an allowed
 * asymmetric `alg`, and `typ` = `at+jwt` (RFC 9068 §4; `application/at+jwt` is the same media type).
 */
function checkHeader(jose: typeof Jose, token: string): void {
  if (typeof token !== 'string' || token.split('.').length !== 3) throw malformed('the token is not a signed JWT');
  let header: Jose.ProtectedHeaderParameters;
  try {
    header = jose.decodeProtectedHeader(token);
  } catch {
    throw malformed('the token is not a signed JWT');
  }
  if (typeof header.alg !== 'string' || !(ACCEPTED_ALGORITHMS as readonly string[]).includes(header.alg)) {
    throw new TokenRejectedError(TokenRejectionReason.UnsupportedAlg, 'the token’s signature algorithm is not accepted');
  }
  const type = typeof header.typ === 'string' ? header.typ.toLowerCase() : undefined;
  if (type !== 'at+jwt' && type !== 'application/at+jwt') {
    throw new TokenRejectedError(TokenRejectionReason.WrongType, 'the token is not an access token (typ must be at+jwt)');
  }
}

/** jose's verdict as our reason code; anything unforeseen counts as malformed (never as valid). */
function rejection(jose: typeof Jose, error: unknown): Error {
  if (error instanceof TokenRejectedError || error instanceof KeySetUnavailableError) return error;
  const { errors } = jose;
  if (error instanceof errors.JWTExpired) return new TokenRejectedError(TokenRejectionReason.Expired, 'the token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return new TokenRejectedError(TokenRejectionReason.WrongIssuer, 'the token was issued by another authorization server');
    if (error.claim === 'nbf' && error.reason === 'check_failed') {
      return new TokenRejectedError(TokenRejectionReason.NotYetValid, 'the token is not valid yet');
    }
    return malformed(`the token’s ${error.claim} claim is ${error.reason === 'missing' ? 'missing' : 'invalid'}`);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSMultipleMatchingKeys) {
    return new TokenRejectedError(TokenRejectionReason.BadSignature, 'the token’s signature does not verify');
  }
  if (error instanceof errors.JWKSNoMatchingKey) return new TokenRejectedError(TokenRejectionReason.UnknownKey, 'the token is signed with an unknown key');
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return new TokenRejectedError(TokenRejectionReason.UnsupportedAlg, 'the token’s signature algorithm is not accepted');
  }
  return malformed('the token is not a valid JWT');
}

/** A caller's own copy: the remembered claims must not change when a caller edits what it got. */
function copyClaims(claims: VerifiedAccessToken): VerifiedAccessToken {
  return {
    ...claims,
    scopes: [...claims.scopes],
    ...(claims.obtainableScopes === undefined ? {} : { obtainableScopes: [...claims.obtainableScopes] }),
    roles: [...claims.roles],
    audience: [...claims.audience],
  };
}

/** A space-delimited scope claim (RFC 6749 §3.3), each scope once. */
function splitScopes(value: string): string[] {
  return [...new Set(value.split(' ').filter((entry) => entry.length > 0))];
}

function malformed(message: string): TokenRejectedError {
  return new TokenRejectedError(TokenRejectionReason.Malformed, message);
}

function optionalString(payload: Jose.JWTPayload, claim: string): string | undefined {
  const value = payload[claim];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw malformed(`the token’s ${claim} claim is not a string`);
  return value;
}

/**
 * A resource URL in the form used for comparison: the WHATWG parse lowercases scheme and host and
 * drops a default port; the path stays case-sensitive. Non-URLs compare as given.
 */
export function canonicalResource(value: string): string {
  try {
    return new URL(value).href;
  } catch {
    return value;
  }
}
