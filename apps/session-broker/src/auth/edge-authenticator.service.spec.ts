import { describe, expect, it, vi } from 'vitest';
import { WireErrorCode } from '@mcp-platform/protocol-contracts';
import { type AccessTokenVerifier, KeySetUnavailableError, RevocationList, TokenRejectedError, type VerifiedAccessToken } from '@mcp-platform/shared-auth';
import { RpcError } from '@mcp-platform/shared-messaging';
import { resolveSessionBrokerOptions } from '../session-broker.options';
import type { VirtualServer } from '../virtual-servers/virtual-server.cache';
import { EdgeAuthenticator } from './edge-authenticator.service';
import { ProtectedResources } from './protected-resources';
import type { TokenRevocations } from './token-revocations.service';

const PUBLIC_URL = 'http://mcp.test';
const PRIVATE: VirtualServer = { tenant: 'demo', name: 'private', title: 'Private', public: false, scopes: ['mcp', 'demo:crypto'] };
const PUBLIC: VirtualServer = { tenant: 'demo', name: 'open', public: true, scopes: ['mcp'] };
const PRM = `${PUBLIC_URL}/.well-known/oauth-protected-resource/demo/private/mcp`;

const TENANT_ID = '9b0e3c2a-1111-4222-8333-444455556666';
const ISSUED_AT = Date.now() - 10_000;

const token = (overrides: Partial<VerifiedAccessToken> = {}): VerifiedAccessToken => ({
  subject: 'user-1',
  clientId: 'client-1',
  tenant: 'demo',
  tenantId: TENANT_ID,
  issuedAt: ISSUED_AT,
  scopes: ['mcp'],
  roles: [],
  expiresAt: Date.now() + 60_000,
  audience: [`${PUBLIC_URL}/demo/private/mcp`],
  ...overrides,
});

/** The broker's revocations without the bus: `ready` resolves (or fails with `loadError`), the list is in memory. */
function revocationsStub(loadError?: Error) {
  const list = new RevocationList();
  const revocations = {
    ready: async () => {
      if (loadError) throw loadError;
    },
    add: (revocation: Parameters<RevocationList['add']>[0]) => list.add(revocation),
    isRevoked: (revocable: Parameters<RevocationList['isRevoked']>[0]) => list.isRevoked(revocable),
  };
  return revocations as unknown as TokenRevocations & { add: RevocationList['add'] };
}

function authenticator(verify: AccessTokenVerifier['verify'] = async () => token(), anonymousTenants: string[] = [], revocations = revocationsStub()) {
  const options = resolveSessionBrokerOptions({
    publicUrl: PUBLIC_URL,
    allowedHosts: [],
    allowedOrigins: [],
    bodyLimitBytes: 1024,
    auth: { issuer: 'http://as.test/oauth', anonymousTenants },
  });
  const verifier = { verify: vi.fn(verify) };
  return {
    edge: new EdgeAuthenticator(verifier as unknown as AccessTokenVerifier, new ProtectedResources(options), revocations, options),
    verifier,
    revocations,
  };
}

const bearer = (value = 'a.b.c') => ({ headers: { authorization: `Bearer ${value}` } });

describe('EdgeAuthenticator', () => {
  describe('authenticate', () => {
    it('lets a caller without a token use a public server as the anonymous principal', async () => {
      const { edge, verifier } = authenticator();
      await expect(edge.authenticate({ headers: {} }, PUBLIC)).resolves.toEqual({
        ok: true,
        principal: { subject: 'anonymous', tenant: 'demo', scopes: [], anonymous: true },
      });
      expect(verifier.verify).not.toHaveBeenCalled();
    });

    it('challenges a caller without a token on a protected server with 401, the metadata URL and the baseline scope', async () => {
      const { edge } = authenticator();
      await expect(edge.authenticate({ headers: {} }, PRIVATE)).resolves.toEqual({
        ok: false,
        status: 401,
        headers: { 'www-authenticate': `Bearer resource_metadata="${PRM}", scope="mcp"` },
        message: 'Unauthorized: this MCP server requires an access token',
      });
    });

    it('lets anonymous callers into protected servers of a tenant on the development list', async () => {
      const { edge } = authenticator(undefined, ['demo']);
      await expect(edge.authenticate({ headers: {} }, PRIVATE)).resolves.toMatchObject({ ok: true, principal: { subject: 'anonymous', anonymous: true } });
    });

    it('refuses an access token in the query string with 400 invalid_request, even on a public server (S-138)', async () => {
      const { edge, verifier } = authenticator();
      const decision = await edge.authenticate({ headers: {}, query: { access_token: 'a.b.c' } }, PUBLIC);
      expect(decision).toMatchObject({ ok: false, status: 400 });
      expect(decision.ok ? '' : decision.headers['www-authenticate']).toMatch(/error="invalid_request"/);
      expect(verifier.verify).not.toHaveBeenCalled();
    });

    it('refuses a malformed Authorization header with 400 invalid_request (S-145)', async () => {
      const { edge } = authenticator();
      for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer a b']) {
        const decision = await edge.authenticate({ headers: { authorization } }, PRIVATE);
        expect(decision, authorization).toMatchObject({ ok: false, status: 400 });
        expect(decision.ok ? '' : decision.headers['www-authenticate']).toBe(
          `Bearer resource_metadata="${PRM}", scope="mcp", error="invalid_request", error_description="the Authorization header must be 'Bearer <access token>'"`,
        );
      }
    });

    it('verifies the token for the server’s canonical URL and builds the principal from it, with the token’s expiry', async () => {
      const verified = token({ scopes: ['mcp', 'demo:crypto'] });
      const { edge, verifier } = authenticator(async () => verified);
      await expect(edge.authenticate(bearer('x.y.z'), PRIVATE)).resolves.toEqual({
        ok: true,
        principal: { subject: 'user-1', tenant: 'demo', clientId: 'client-1', scopes: ['mcp', 'demo:crypto'], anonymous: false },
        expiresAt: verified.expiresAt,
      });
      expect(verifier.verify).toHaveBeenCalledWith('x.y.z', { audience: `${PUBLIC_URL}/demo/private/mcp` });
    });

    it('carries the scopes the token says the caller could obtain into the principal, so step-up tools are listed (issue 13 item 13)', async () => {
      const { edge } = authenticator(async () => token({ obtainableScopes: ['mcp', 'demo:crypto'] }));
      await expect(edge.authenticate(bearer(), PRIVATE)).resolves.toMatchObject({
        ok: true,
        principal: { scopes: ['mcp'], obtainableScopes: ['mcp', 'demo:crypto'] },
      });
    });

    it('answers a refused token with 401 invalid_token and the verifier’s safe reason (S-141)', async () => {
      const { edge } = authenticator(async () => {
        throw new TokenRejectedError('expired', 'the token has expired');
      });
      await expect(edge.authenticate(bearer(), PRIVATE)).resolves.toEqual({
        ok: false,
        status: 401,
        headers: { 'www-authenticate': `Bearer resource_metadata="${PRM}", scope="mcp", error="invalid_token", error_description="the token has expired"` },
        message: 'Unauthorized: the token has expired',
      });
    });

    it('refuses an invalid token on a public server too', async () => {
      const { edge } = authenticator(async () => {
        throw new TokenRejectedError('wrong_audience', 'the token was not issued for this resource');
      });
      await expect(edge.authenticate(bearer(), PUBLIC)).resolves.toMatchObject({ ok: false, status: 401 });
    });

    it('answers 503 when the signing keys cannot be fetched', async () => {
      const { edge } = authenticator(async () => {
        throw new KeySetUnavailableError(new Error('no responders'));
      });
      await expect(edge.authenticate(bearer(), PRIVATE)).resolves.toMatchObject({ ok: false, status: 503, headers: { 'retry-after': '1' } });
    });

    it('refuses a token of another tenant, or of none, with 401 invalid_token', async () => {
      for (const tenant of ['acme', undefined]) {
        const { edge } = authenticator(async () => {
          const verified = token({ tenant });
          if (tenant === undefined) delete verified.tenant;
          return verified;
        });
        const decision = await edge.authenticate(bearer(), PRIVATE);
        expect(decision).toMatchObject({ ok: false, status: 401 });
        expect(decision.ok ? '' : decision.headers['www-authenticate']).toMatch(/error="invalid_token"/);
      }
    });

    it('refuses every caller of a disabled tenant with 403: a token holder, and an anonymous caller of a public server', async () => {
      const { edge, verifier } = authenticator();
      for (const [request, server] of [
        [bearer(), { ...PRIVATE, disabled: true }],
        [{ headers: {} }, { ...PUBLIC, disabled: true }],
      ] as const) {
        await expect(edge.authenticate(request, server)).resolves.toEqual({
          ok: false,
          status: 403,
          headers: {},
          message: 'Forbidden: the tenant of this MCP server is disabled',
        });
      }
      expect(verifier.verify).not.toHaveBeenCalled();
    });

    it('refuses a token whose tenant (by id) or user was revoked after it was issued, and one without a tenant id, with 401 invalid_token', async () => {
      const revocations = revocationsStub();
      const { edge } = authenticator(async () => token(), [], revocations);
      await expect(edge.authenticate(bearer(), PRIVATE)).resolves.toMatchObject({ ok: true });
      revocations.add({ kind: 'tenant', id: TENANT_ID, revokedAt: ISSUED_AT + 1_000, tenant: 'demo' });
      const refused = await edge.authenticate(bearer(), PRIVATE);
      expect(refused).toMatchObject({ ok: false, status: 401, message: expect.stringContaining('revoked') });
      expect(refused.ok ? '' : refused.headers['www-authenticate']).toMatch(/error="invalid_token"/);
      // A token of the tenant created again with the same slug has another id and a later iat.
      const { edge: again } = authenticator(async () => token({ tenantId: 'another-id', issuedAt: ISSUED_AT + 5_000 }), [], revocations);
      await expect(again.authenticate(bearer(), PRIVATE)).resolves.toMatchObject({ ok: true });

      const users = revocationsStub();
      users.add({ kind: 'subject', id: 'user-1', revokedAt: ISSUED_AT });
      await expect(authenticator(async () => token(), [], users).edge.authenticate(bearer(), PRIVATE)).resolves.toMatchObject({ ok: false, status: 401 });

      const withoutId = token();
      delete withoutId.tenantId;
      await expect(authenticator(async () => withoutId).edge.authenticate(bearer(), PRIVATE)).resolves.toMatchObject({ ok: false, status: 401 });
    });

    it('answers 503 when the revocations cannot be loaded: no token is accepted without them', async () => {
      const { edge } = authenticator(async () => token(), [], revocationsStub(new RpcError(WireErrorCode.Unavailable, 'no responders')));
      await expect(edge.authenticate(bearer(), PRIVATE)).resolves.toMatchObject({ ok: false, status: 503, headers: { 'retry-after': '1' } });
    });

    it('answers a token without the mcp scope on a protected server with 403 insufficient_scope', async () => {
      const { edge } = authenticator(async () => token({ scopes: ['demo:crypto'] }));
      await expect(edge.authenticate(bearer(), PRIVATE)).resolves.toMatchObject({
        ok: false,
        status: 403,
        headers: {
          'www-authenticate': `Bearer resource_metadata="${PRM}", scope="mcp", error="insufficient_scope", error_description="this MCP server needs the mcp scope"`,
        },
      });
    });

    it('accepts a valid token without the mcp scope on a public server', async () => {
      const { edge } = authenticator(async () => token({ scopes: [], audience: [`${PUBLIC_URL}/demo/open/mcp`] }));
      await expect(edge.authenticate(bearer(), PUBLIC)).resolves.toMatchObject({ ok: true, principal: { subject: 'user-1', anonymous: false, scopes: [] } });
    });
  });

  describe('insufficientScope', () => {
    it('names every scope the operation needs in one 403 challenge (S-142, S-143)', () => {
      const { edge } = authenticator();
      expect(edge.insufficientScope(PRIVATE, ['mcp', 'demo:crypto'])).toEqual({
        status: 403,
        headers: {
          'www-authenticate': `Bearer resource_metadata="${PRM}", scope="mcp demo:crypto", error="insufficient_scope", error_description="this operation needs the scopes: mcp demo:crypto"`,
        },
      });
    });
  });
});
