import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type * as Jose from 'jose' with { 'resolution-mode': 'import' };
import { beforeAll, describe, expect, it } from 'vitest';
import { AccessTokenVerifier, type RevocableToken } from '@mcp-platform/shared-auth';
import { adminApiSettings } from './admin.constants';
import { AdminApiError } from './admin.errors';
import type { AdminAccessLevel, CurrentAdminRights } from './admin-access';
import { AdminAccess, AdminAuthGuard, type AdminRequest } from './admin-auth.guard';
import { AdminSubjects } from './admin-subjects.service';

const PUBLIC_URL = 'https://auth.example.test';
const settings = adminApiSettings({
  publicUrl: PUBLIC_URL,
  issuer: `${PUBLIC_URL}/oauth`,
  adminAudience: `${PUBLIC_URL}/admin/v1`,
  mcpPublicUrl: 'https://mcp.example.test',
});

class PlatformRoutes {
  route(): void {}
}
AdminAccess('platform')(PlatformRoutes);

class TenantRoutes {
  route(): void {}
}
AdminAccess('tenant')(TenantRoutes);

type CryptoKey = Jose.CryptoKey;
type JWTPayload = Jose.JWTPayload;

interface TokenOptions {
  subject?: string;
  key?: CryptoKey;
  typ?: string;
  audience?: string;
}

// jose is ESM-only; this CommonJS-compiled file loads it dynamically.
let jose: typeof Jose;
let signingKey: CryptoKey;
let otherKey: CryptoKey;
let guard: AdminAuthGuard;

const PLATFORM_ADMIN = '5d9b4e0e-8f61-4a51-9c43-3c3f1f0b8a11';
const ACME_ADMIN = '7a0c1f4e-2b3d-4c5e-8f60-718293a4b5c6';
const DEMOTED = '8b1d2e3f-4a5b-4c6d-9e7f-8091a2b3c4d5';
const MOVED = '9c2e3f40-5b6c-4d7e-8f90-a1b2c3d4e5f6';
const ACME_ID = '0f1e2d3c-4b5a-4968-8776-655443322110';

/** What the users table says now, per subject; an absent subject is unknown or disabled. */
const currentRights = new Map<string, CurrentAdminRights>([
  [PLATFORM_ADMIN, { tenant: undefined, roles: ['platform-admin'] }],
  [ACME_ADMIN, { tenant: 'acme', roles: ['tenant-admin'] }],
  [DEMOTED, { tenant: 'acme', roles: [] }],
  [MOVED, { tenant: 'globex', roles: ['tenant-admin'] }],
]);

class FakeSubjects extends AdminSubjects {
  async currentRights(token: RevocableToken): Promise<CurrentAdminRights | undefined> {
    return currentRights.get(token.subject);
  }
}

beforeAll(async () => {
  jose = await import('jose');
  const pair = await jose.generateKeyPair('RS256');
  signingKey = pair.privateKey;
  otherKey = (await jose.generateKeyPair('RS256')).privateKey;
  const publicJwk = { ...(await jose.exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const verifier = new AccessTokenVerifier({ keySource: async () => ({ issuer: settings.issuer, keys: [publicJwk as never] }) });
  guard = new AdminAuthGuard(verifier, new Reflector(), new FakeSubjects(), settings);
});

function token(claims: JWTPayload, options: TokenOptions = {}): Promise<string> {
  return new jose.SignJWT({ scope: 'admin', client_id: 'admin-cli', ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: options.typ ?? 'at+jwt' })
    .setIssuer(settings.issuer)
    .setAudience(options.audience ?? settings.audience)
    .setSubject(options.subject ?? PLATFORM_ADMIN)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(options.key ?? signingKey);
}

function contextFor(level: AdminAccessLevel, request: Partial<AdminRequest>): ExecutionContext {
  const routes = level === 'platform' ? PlatformRoutes : TenantRoutes;
  return {
    switchToHttp: () => ({ getRequest: () => request }),
    getHandler: () => routes.prototype.route,
    getClass: () => routes,
  } as unknown as ExecutionContext;
}

async function outcome(level: AdminAccessLevel, authorization: string | undefined, tenant?: string) {
  const request = { headers: authorization === undefined ? {} : { authorization }, params: tenant === undefined ? {} : { tenant } } as Partial<AdminRequest>;
  try {
    await guard.canActivate(contextFor(level, request));
    return { status: 200, principal: request.adminPrincipal };
  } catch (error) {
    if (!(error instanceof AdminApiError)) throw error;
    return { status: error.status, code: error.code, challenge: error.details.challenge };
  }
}

const bearer = async (claims: JWTPayload, options?: TokenOptions) => `Bearer ${await token(claims, options)}`;

describe(AdminAuthGuard, () => {
  describe('canActivate', () => {
    it('answers 401 with a Bearer challenge naming the metadata and the admin scope when no token is sent', async () => {
      expect(await outcome('platform', undefined)).toEqual({
        status: 401,
        code: 'UNAUTHORIZED',
        challenge: `Bearer resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource/admin/v1", scope="admin"`,
      });
    });

    it('answers 401 invalid_token for another scheme, a bad signature, another audience or an ID token', async () => {
      const cases = [
        'Basic YWRtaW46YWRtaW4=',
        await bearer({ roles: ['platform-admin'] }, { key: otherKey }),
        await bearer({ roles: ['platform-admin'] }, { audience: 'https://mcp.example.test/demo/default/mcp' }),
        await bearer({ roles: ['platform-admin'] }, { typ: 'JWT' }),
      ];
      for (const authorization of cases) {
        const result = await outcome('platform', authorization);
        expect(result).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
        expect(result.challenge).toContain('error="invalid_token"');
      }
    });

    it('lets a platform admin through and attaches the principal', async () => {
      const result = await outcome('platform', await bearer({ roles: ['platform-admin'] }));
      expect(result).toEqual({
        status: 200,
        principal: { subject: PLATFORM_ADMIN, clientId: 'admin-cli', tenant: undefined, scopes: ['admin'], roles: ['platform-admin'] },
      });
      expect(await outcome('tenant', await bearer({ roles: ['platform-admin'] }), 'globex')).toMatchObject({ status: 200 });
    });

    it("lets a tenant admin into its own tenant's routes only", async () => {
      const authorization = await bearer({ roles: ['tenant-admin'], tenant: 'acme', tenant_id: ACME_ID }, { subject: ACME_ADMIN });
      expect(await outcome('tenant', authorization, 'acme')).toMatchObject({ status: 200 });
      expect(await outcome('tenant', authorization, 'globex')).toEqual({ status: 403, code: 'FORBIDDEN', challenge: undefined });
      expect(await outcome('platform', authorization)).toEqual({ status: 403, code: 'FORBIDDEN', challenge: undefined });
    });

    it('answers 401 invalid_token to a token that names a tenant without its id (tenant_id)', async () => {
      const result = await outcome('tenant', await bearer({ roles: ['tenant-admin'], tenant: 'acme' }, { subject: ACME_ADMIN }), 'acme');
      expect(result).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
      expect(result.challenge).toContain('error="invalid_token"');
    });

    it('answers 403 insufficient_scope for an admin without the admin scope', async () => {
      const result = await outcome('platform', await bearer({ roles: ['platform-admin'], scope: 'mcp' }));
      expect(result).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
      expect(result.challenge).toContain('error="insufficient_scope"');
      expect(result.challenge).toContain('scope="admin"');
    });

    it('answers 403 to a valid token without an admin role', async () => {
      expect(await outcome('tenant', await bearer({ roles: [], tenant: 'acme', tenant_id: ACME_ID }, { subject: ACME_ADMIN }), 'acme')).toMatchObject({
        status: 403,
        code: 'FORBIDDEN',
      });
    });

    it('answers 401 invalid_token when the user is gone or disabled, whatever the token says', async () => {
      const result = await outcome('platform', await bearer({ roles: ['platform-admin'] }, { subject: '0f0e0d0c-0b0a-4908-8706-050403020100' }));
      expect(result).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
      expect(result.challenge).toContain('error="invalid_token"');
    });

    it('answers 403 when the user lost the role the token still claims', async () => {
      expect(
        await outcome('tenant', await bearer({ roles: ['tenant-admin'], tenant: 'acme', tenant_id: ACME_ID }, { subject: DEMOTED }), 'acme'),
      ).toMatchObject({ status: 403, code: 'FORBIDDEN' });
      expect(await outcome('platform', await bearer({ roles: ['platform-admin'] }, { subject: ACME_ADMIN }))).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    });

    it('answers 403 when the user now belongs to another tenant than the token names', async () => {
      expect(await outcome('tenant', await bearer({ roles: ['tenant-admin'], tenant: 'acme', tenant_id: ACME_ID }, { subject: MOVED }), 'acme')).toMatchObject({
        status: 403,
        code: 'FORBIDDEN',
      });
    });
  });
});
