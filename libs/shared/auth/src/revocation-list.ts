import { authorizationServer } from '@mcp-platform/protocol-contracts';

function keyOf(kind: authorizationServer.Revocation['kind'], id: string): string {
  return `${kind}\u0000${id}`;
}

/** What a revocation check needs to know of a verified token. */
export interface RevocableToken {
  /** `sub`. */
  subject: string;
  /** `tenant_id`. */
  tenantId?: string;
  /** `iat` in epoch milliseconds; a token without one counts as issued at the epoch (refused by any revocation). */
  issuedAt?: number;
}

/**
 * The revocations a resource server holds in memory (a few entries: one per tenant or user disabled
 * or deleted within the horizon): a token is refused when its tenant id or its subject was revoked at
 * or after it was issued. A later revocation of the same id replaces an earlier one; entries older than
 * the horizon are dropped, since every token they could refuse has expired. No look-up on the hot path.
 */
export class RevocationList {
  private readonly revokedAt = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Records a revocation (the later of two for one id wins). */
  add(revocation: authorizationServer.Revocation): void {
    const key = keyOf(revocation.kind, revocation.id);
    if ((this.revokedAt.get(key) ?? -1) < revocation.revokedAt) this.revokedAt.set(key, revocation.revokedAt);
  }

  /** Whether the token's tenant or subject was revoked at or after it was issued. */
  isRevoked(token: RevocableToken): boolean {
    if (this.revokedAt.size === 0) return false;
    this.prune();
    // `iat` has whole seconds: a token issued in the second of a revocation counts as issued before it.
    const issuedAt = token.issuedAt ?? 0;
    const revokedAfterIssue = (key: string) => (this.revokedAt.get(key) ?? -1) >= issuedAt;
    return revokedAfterIssue(keyOf('subject', token.subject)) || (token.tenantId !== undefined && revokedAfterIssue(keyOf('tenant', token.tenantId)));
  }

  /** How many revocations are held. */
  get size(): number {
    return this.revokedAt.size;
  }

  private prune(): void {
    const horizon = this.now() - authorizationServer.REVOCATION_HORIZON_MS;
    for (const [key, revokedAt] of this.revokedAt) if (revokedAt < horizon) this.revokedAt.delete(key);
  }
}
