import { describe, expect, it, vi } from 'vitest';
import { KeySetUnavailableError, TokenRejectedError, type AccessTokenVerifier, type VerifiedAccessToken } from '@mcp-platform/shared-auth';
import { resolveSessionBrokerOptions } from '../session-broker.options';
import type { VirtualServer } from '../virtual-servers/virtual-server.cache';
import { EdgeAuthenticator } from './edge-authenticator.service';
import { ProtectedResources } from './protected-resources';

const PUBLIC_URL = 'http://mcp.test';
const PRIVATE: VirtualServer = { tenant: 'demo', name: 'private', title: 'Private', public: false, scopes: ['mcp', 'demo:crypto'] };
const PUBLIC: VirtualServer = { tenant: 'demo', name: 'open', public: true, scopes: ['mcp'] };
const PRM = `${PUBLIC_URL}/.well-known/oauth-protected-resource/demo/private/mcp`;

const token = (overrides: Partial<VerifiedAccessToken> = {}): VerifiedAccessToken => ({
  subject: 'user-1',
  clientId: 'client-1',
  tenant: 'demo',
  scopes: ['mcp'],
  roles: [],
  expiresAt: Date.now() + 60_000,
  audience: [`${PUBLIC_URL}/demo/private/mcp`],
  ...overrides,
});

function authenticator(verify: AccessTokenVerifier['verify'] = async () => token(), anonymousTenants: string[] = []) {
  const options = resolveSessionBrokerOptions({
    publicUrl: PUBLIC_URL,
    allowedHosts: [],
    allowedOrigins: [],
    bodyLimitBytes: 1024,
    auth: { issuer: 'http://as.test/oauth', anonymousTenants },
  });
  const verifier = { verify: vi.fn(verify) };
  return { edge: new EdgeAuthenticator(verifier as unknown as AccessTokenVerifier, new ProtectedResources(options), options), verifier };
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
      await expect(edge.authenticate(bearer(), PRIVATE)).resolves.toMatchObject({ ok: true, principal: { scopes: ['mcp'], obtainableScopes: ['mcp', 'demo:crypto'] } });
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

    it('answers a token without the mcp scope on a protected server with 403 insufficient_scope', async () => {
      const { edge } = authenticator(async () => token({ scopes: ['demo:crypto'] }));
      await expect(edge.authenticate(bearer(), PRIVATE)).resolves.toMatchObject({
        ok: false,
        status: 403,
        headers: { 'www-authenticate': `Bearer resource_metadata="${PRM}", scope="mcp", error="insufficient_scope", error_description="this MCP server needs the mcp scope"` },
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
