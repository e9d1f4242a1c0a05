import { describe, expect, it } from 'vitest';
import { authorizationServer } from '@mcp-platform/protocol-contracts';
import { RevocationList } from './revocation-list';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const TENANT = '7d1c0c5e-0000-4000-8000-000000000001';

describe(RevocationList, () => {
  it('refuses tokens of a revoked tenant issued until the revocation, and accepts later ones', () => {
    const list = new RevocationList(() => NOW);
    list.add({ kind: 'tenant', id: TENANT, revokedAt: NOW - 5_000, tenant: 'acme' });
    expect(list.isRevoked({ subject: 'u1', tenantId: TENANT, issuedAt: NOW - 60_000 })).toBe(true);
    // The same second as the revocation (iat has whole seconds) counts as before it.
    expect(list.isRevoked({ subject: 'u1', tenantId: TENANT, issuedAt: NOW - 5_000 })).toBe(true);
    expect(list.isRevoked({ subject: 'u1', tenantId: TENANT, issuedAt: NOW - 4_000 })).toBe(false);
    expect(list.isRevoked({ subject: 'u1', tenantId: 'another-tenant', issuedAt: NOW - 60_000 })).toBe(false);
  });

  it('refuses tokens of a revoked subject, and a token without iat whenever its subject was revoked', () => {
    const list = new RevocationList(() => NOW);
    list.add({ kind: 'subject', id: 'user-1', revokedAt: NOW - 1_000 });
    expect(list.isRevoked({ subject: 'user-1', tenantId: TENANT, issuedAt: NOW - 2_000 })).toBe(true);
    expect(list.isRevoked({ subject: 'user-1' })).toBe(true);
    expect(list.isRevoked({ subject: 'user-2', issuedAt: NOW - 2_000 })).toBe(false);
  });

  it('keeps the latest revocation of an id, and forgets revocations beyond the horizon', () => {
    const clock = { now: NOW };
    const list = new RevocationList(() => clock.now);
    list.add({ kind: 'subject', id: 'user-1', revokedAt: NOW });
    list.add({ kind: 'subject', id: 'user-1', revokedAt: NOW - 10_000 });
    expect(list.isRevoked({ subject: 'user-1', issuedAt: NOW - 5_000 })).toBe(true);
    clock.now = NOW + authorizationServer.REVOCATION_HORIZON_MS + 1;
    expect(list.isRevoked({ subject: 'user-1', issuedAt: NOW - 5_000 })).toBe(false);
    expect(list.size).toBe(0);
  });
});
