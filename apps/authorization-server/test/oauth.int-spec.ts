import 'reflect-metadata';
import { Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessMessaging, MessagingModule, microserviceOptions, type MessagingOptions } from '@mcp-platform/shared-messaging';
import { createThrowawayDatabase, DEFAULT_TEST_DATABASE_URL, type DatabaseOptions } from '@mcp-platform/shared-persistence';
import { getFreePort } from '@mcp-platform/shared-testing';
import { configureAuthorizationServerHttp } from '../src/authorization-server.http';
import { AuthorizationServerModule } from '../src/authorization-server.module';
import { ClientsService } from '../src/clients/clients.service';
import { SigningKeysService } from '../src/signing-keys/signing-keys.service';
import { UsersService } from '../src/users/users.service';
import { FakeToolExecutorController } from './fake-tool-executor';
import { authorizationUrl, authorize, decodeJwt, formOf, pkce, postForm, TestBrowser } from './oauth-browser';
import { startSelfSignedHttps, type SelfSignedHttps } from './self-signed-https';

const NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const run = `oa${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const DEMO = { username: 'demo', password: 'demo-password-for-oauth-tests' };
const ADMIN = { username: 'root', password: 'admin-password-for-oauth-tests' };
const MCP_PUBLIC_URL = 'http://127.0.0.1:3000';
const DEMO_RESOURCE = `${MCP_PUBLIC_URL}/demo/default/mcp`;
const CONFORMANCE_RESOURCE = `${MCP_PUBLIC_URL}/conformance/everything/mcp`;
const CALLBACK = 'http://127.0.0.1:9999/callback';

interface Setup {
  name: string;
  messaging: () => MessagingOptions;
  database: () => Promise<{ options: DatabaseOptions; drop?: () => Promise<void> }>;
}

/** The distributed mode's stores, and the embedded mode's (one PGlite, the in-process bus). */
const setups: Setup[] = [
  {
    name: 'NATS + PostgreSQL',
    messaging: () => ({ transport: 'nats', servers: NATS_URL, name: `oauth-test-${run}`, bucketPrefix: `${run}-`, subjectPrefix: run }),
    database: async () => {
      const database = await createThrowawayDatabase(process.env['DATABASE_URL'] ?? DEFAULT_TEST_DATABASE_URL, 'authorization_server');
      return { options: { kind: 'postgres', url: database.url }, drop: () => database.drop() };
    },
  },
  { name: 'in-process + PGlite', messaging: () => inProcessMessaging(), database: async () => ({ options: { kind: 'pglite' } }) },
];

describe.each(setups)('the OAuth 2.1 authorization server (oidc-provider) over $name', (setup) => {
  let app: NestFastifyApplication;
  let drop: (() => Promise<void>) | undefined;
  let cimd: SelfSignedHttps;
  let cimdFetches = 0;
  /** The public JWK a private_key_jwt CIMD client publishes in its document (set by its test). */
  let clientJwk: Record<string, unknown> | undefined;
  let origin: string;
  let issuer: string;
  let clients: ClientsService;
  /** A pre-registered public client of tenant demo (authorization code + refresh token). */
  let publicClient: string;

  beforeAll(async () => {
    Logger.overrideLogger(['error']);
    cimd = await startSelfSignedHttps(serveClientDocuments);
    const database = await setup.database();
    drop = database.drop;
    const port = await getFreePort();
    origin = `http://127.0.0.1:${port}`;
    issuer = `${origin}/oauth`;
    const messaging = setup.messaging();

    @Module({
      imports: [
        MessagingModule.forRoot(messaging),
        AuthorizationServerModule.register({
          database: database.options,
          publicUrl: origin,
          mcpPublicUrl: MCP_PUBLIC_URL,
          seed: { demoUserPassword: DEMO.password },
          bootstrapAdmin: ADMIN,
          cimd: { allowedHosts: ['127.0.0.1'], caPem: cimd.caPem },
        }),
      ],
      controllers: [FakeToolExecutorController],
    })
    class TestModule {}

    app = await NestFactory.create<NestFastifyApplication>(TestModule, new FastifyAdapter(), { logger: ['error'] });
    configureAuthorizationServerHttp(app);
    app.connectMicroservice(microserviceOptions(messaging), { inheritAppConfig: true });
    await app.init();
    await app.startAllMicroservices();
    await app.listen(port, '127.0.0.1');
    clients = app.get(ClientsService);
    publicClient = (
      await clients.create('demo', {
        client_name: 'Public <Test> Client',
        redirect_uris: [CALLBACK],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
      })
    ).client.clientId;
  });

  afterAll(async () => {
    try {
      await app?.close();
    } finally {
      await cimd?.close();
      await drop?.();
    }
  });

  function serveClientDocuments(request: IncomingMessage, response: ServerResponse): void {
    cimdFetches += 1;
    const url = `${cimd.origin}${request.url ?? '/'}`;
    if (request.url === '/client.json') {
      response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=120' });
      response.end(JSON.stringify({ client_id: url, client_name: 'CIMD Test Client', redirect_uris: [CALLBACK], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' }));
      return;
    }
    if (request.url === '/pkjwt.json' && clientJwk) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ client_id: url, client_name: 'Key Client', redirect_uris: [CALLBACK], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [clientJwk] } }));
      return;
    }
    if (request.url === '/big.json') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ client_id: url, client_name: 'Big', redirect_uris: [CALLBACK], padding: 'x'.repeat(6 * 1024) }));
      return;
    }
    response.writeHead(404).end();
  }

  /** Exchanges a code at the token endpoint as a public client. */
  function exchangeCode(clientId: string, code: string, verifier: string, resource = DEMO_RESOURCE) {
    return postForm(`${issuer}/token`, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: clientId, code_verifier: verifier, resource });
  }

  /** A full authorization code flow for the demo user on demo/default; answers the token response. */
  async function signInAndExchange(clientId: string, scope = 'mcp demo:crypto') {
    const { verifier, challenge } = pkce();
    const browser = new TestBrowser(origin);
    const { callback } = await authorize(browser, issuer, { clientId, redirectUri: CALLBACK, resource: DEMO_RESOURCE, scope, state: 'st-1', codeChallenge: challenge, codeChallengeMethod: 'S256' }, DEMO);
    const code = callback.searchParams.get('code');
    expect(code, callback.href).toBeTruthy();
    return { tokens: await exchangeCode(clientId, code as string, verifier), callback, browser };
  }

  async function verifyAccessToken(token: string, audience: string) {
    // jose is ESM-only: imported dynamically from this CommonJS-typed file.
    const { createLocalJWKSet, jwtVerify } = await import('jose');
    const jwks = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: [] };
    return jwtVerify(token, createLocalJWKSet(jwks), { issuer, audience, typ: 'at+jwt', algorithms: ['RS256'] });
  }

  describe('metadata (RFC 8414, S-157..S-159, S-162, S-175)', () => {
    it('serves the same discovery document at both path-inserted well-knowns and under the issuer', async () => {
      const [inserted, openid, own] = await Promise.all(
        [`${origin}/.well-known/oauth-authorization-server/oauth`, `${origin}/.well-known/openid-configuration/oauth`, `${issuer}/.well-known/openid-configuration`].map(async (url) => {
          const response = await fetch(url);
          expect(response.status, url).toBe(200);
          return (await response.json()) as Record<string, unknown>;
        }),
      );
      expect(inserted).toEqual(own);
      expect(openid).toEqual(own);
    });

    it('publishes the exact issuer, S256 only, the iss parameter, CIMD support and every endpoint', async () => {
      const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server/oauth`)).json()) as Record<string, unknown>;
      expect(metadata).toMatchObject({
        issuer,
        authorization_endpoint: `${issuer}/auth`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        registration_endpoint: `${issuer}/reg`,
        revocation_endpoint: `${issuer}/token/revocation`,
        introspection_endpoint: `${issuer}/token/introspection`,
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
        client_id_metadata_document_supported: true,
        response_types_supported: ['code'],
      });
      expect(metadata['grant_types_supported']).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']));
      expect(metadata['token_endpoint_auth_methods_supported']).not.toContain('client_secret_jwt');
    });

    it('builds every URL from the configured public origin, whatever Host a client sends', async () => {
      const response = await fetch(`${issuer}/.well-known/openid-configuration`, { headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' } });
      const metadata = (await response.json()) as Record<string, string>;
      expect(metadata['token_endpoint']).toBe(`${issuer}/token`);
    });
  });

  describe('authorization code with PKCE (S-156, S-160, S-161, S-175)', () => {
    it('signs in, asks consent, redirects back with code, state and iss, and issues an audience-bound JWT', async () => {
      const { tokens, callback } = await signInAndExchange(publicClient);
      expect(callback.origin + callback.pathname).toBe(CALLBACK);
      expect(callback.searchParams.get('state')).toBe('st-1');
      expect(callback.searchParams.get('iss')).toBe(issuer);
      expect(tokens.status, JSON.stringify(tokens.json)).toBe(200);
      expect(tokens.json).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'mcp demo:crypto' });
      expect(tokens.json['refresh_token']).toEqual(expect.any(String));

      const access = tokens.json['access_token'] as string;
      const { payload, protectedHeader } = await verifyAccessToken(access, DEMO_RESOURCE);
      const demoUser = (await app.get(UsersService).list('demo')).find((user) => user.username === 'demo');
      expect(protectedHeader).toMatchObject({ typ: 'at+jwt', alg: 'RS256' });
      expect(payload).toMatchObject({ iss: issuer, aud: DEMO_RESOURCE, sub: demoUser?.id, client_id: publicClient, tenant: 'demo', scope: 'mcp demo:crypto' });
      expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(600);
      expect(payload.jti).toEqual(expect.any(String));
    });

    it('renders the pages with the form contract, the security headers, escaping what the client chose', async () => {
      const { signIn, consent } = await authorize(new TestBrowser(origin), issuer, { clientId: publicClient, redirectUri: CALLBACK, resource: DEMO_RESOURCE, scope: 'mcp', codeChallenge: pkce().challenge, codeChallengeMethod: 'S256' }, DEMO);
      for (const page of [signIn, consent]) {
        expect(page.headers.get('x-frame-options')).toBe('DENY');
        expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
        expect(page.headers.get('cache-control')).toBe('no-store');
      }
      expect(signIn.body).toMatch(/<input type="text" id="username" name="username"/);
      expect(signIn.body).toMatch(/<input type="password" id="password" name="password"/);
      expect(signIn.body).toContain('Public &#60;Test&#62; Client');
      expect(signIn.body).not.toContain('<Test>');
      expect(formOf(consent.body, 'deny')).toBeDefined();
      expect(consent.body).toContain('127.0.0.1:9999');
      expect(consent.body).toContain(publicClient);
      expect(consent.body).toContain(DEMO_RESOURCE);
    });

    it('grants only what the roles allow and the server knows', async () => {
      const { tokens } = await signInAndExchange(publicClient, 'mcp demo:crypto admin other');
      expect(tokens.json['scope']).toBe('mcp demo:crypto');
    });

    it('defaults a request without scope to the baseline scope', async () => {
      const { tokens } = await signInAndExchange(publicClient, '');
      expect(tokens.json['scope']).toBe('mcp');
    });

    it('refuses a request without PKCE and one with the plain method', async () => {
      const browser = new TestBrowser(origin);
      const missing = await browser.get(authorizationUrl(issuer, { clientId: publicClient, redirectUri: CALLBACK, resource: DEMO_RESOURCE, scope: 'mcp', state: 's' }));
      const missingRedirect = new URL(missing.location ?? '', origin);
      expect(missingRedirect.searchParams.get('error')).toBe('invalid_request');
      expect(missingRedirect.searchParams.get('error_description')).toMatch(/PKCE/);
      expect(missingRedirect.searchParams.get('iss')).toBe(issuer);

      const plain = await browser.get(
        authorizationUrl(issuer, { clientId: publicClient, redirectUri: CALLBACK, resource: DEMO_RESOURCE, scope: 'mcp', codeChallenge: pkce().verifier, codeChallengeMethod: 'plain' }),
      );
      expect(new URL(plain.location ?? '', origin).searchParams.get('error')).toBe('invalid_request');
    });

    it('refuses a redirect URI that differs by one character, without redirecting to it', async () => {
      const page = await new TestBrowser(origin).get(
        authorizationUrl(issuer, { clientId: publicClient, redirectUri: `${CALLBACK}x`, resource: DEMO_RESOURCE, scope: 'mcp', codeChallenge: pkce().challenge, codeChallengeMethod: 'S256' }),
      );
      expect(page.status).toBe(400);
      expect(page.location).toBeUndefined();
      expect(page.body).toMatch(/redirect_uri/);
      expect(page.headers.get('x-frame-options')).toBe('DENY');
    });

    it('refuses a request without resource, and a resource that is no virtual server (RFC 8707)', async () => {
      const browser = new TestBrowser(origin);
      const without = await browser.get(authorizationUrl(issuer, { clientId: publicClient, redirectUri: CALLBACK, scope: 'mcp', codeChallenge: pkce().challenge, codeChallengeMethod: 'S256' }));
      expect(new URL(without.location ?? '', origin).searchParams.get('error')).toBe('invalid_target');
      const unknown = await browser.get(
        authorizationUrl(issuer, { clientId: publicClient, redirectUri: CALLBACK, resource: `${MCP_PUBLIC_URL}/demo/nope/mcp`, scope: 'mcp', codeChallenge: pkce().challenge, codeChallengeMethod: 'S256' }),
      );
      expect(new URL(unknown.location ?? '', origin).searchParams.get('error')).toBe('invalid_target');
    });

    it('refuses a replayed authorization code and revokes what it issued', async () => {
      const { verifier, challenge } = pkce();
      const { callback } = await authorize(new TestBrowser(origin), issuer, { clientId: publicClient, redirectUri: CALLBACK, resource: DEMO_RESOURCE, scope: 'mcp', codeChallenge: challenge, codeChallengeMethod: 'S256' }, DEMO);
      const code = callback.searchParams.get('code') as string;
      const first = await exchangeCode(publicClient, code, verifier);
      expect(first.status).toBe(200);
      const replay = await exchangeCode(publicClient, code, verifier);
      expect(replay.status).toBe(400);
      expect(replay.json['error']).toBe('invalid_grant');
      const refresh = await postForm(`${issuer}/token`, { grant_type: 'refresh_token', refresh_token: first.json['refresh_token'] as string, client_id: publicClient });
      expect(refresh.json['error']).toBe('invalid_grant');
    });

    it('refuses a wrong code verifier', async () => {
      const { challenge } = pkce();
      const { callback } = await authorize(new TestBrowser(origin), issuer, { clientId: publicClient, redirectUri: CALLBACK, resource: DEMO_RESOURCE, scope: 'mcp', codeChallenge: challenge, codeChallengeMethod: 'S256' }, DEMO);
      const tokens = await exchangeCode(publicClient, callback.searchParams.get('code') as string, pkce().verifier);
      expect(tokens.json['error']).toBe('invalid_grant');
    });
  });

  describe('refresh tokens (S-174)', () => {
    it('rotates the refresh token on every use, and a reused one revokes the whole family', async () => {
      const { tokens } = await signInAndExchange(publicClient);
      const first = tokens.json['refresh_token'] as string;
      const rotated = await postForm(`${issuer}/token`, { grant_type: 'refresh_token', refresh_token: first, client_id: publicClient });
      expect(rotated.status, JSON.stringify(rotated.json)).toBe(200);
      const second = rotated.json['refresh_token'] as string;
      expect(second).toEqual(expect.any(String));
      expect(second).not.toBe(first);
      await expect(verifyAccessToken(rotated.json['access_token'] as string, DEMO_RESOURCE)).resolves.toMatchObject({ payload: { tenant: 'demo', scope: 'mcp demo:crypto' } });

      const reused = await postForm(`${issuer}/token`, { grant_type: 'refresh_token', refresh_token: first, client_id: publicClient });
      expect(reused.json).toMatchObject({ error: 'invalid_grant' });
      const afterReuse = await postForm(`${issuer}/token`, { grant_type: 'refresh_token', refresh_token: second, client_id: publicClient });
      expect(afterReuse.json).toMatchObject({ error: 'invalid_grant' });
    });
  });

  describe('tenants and roles', () => {
    it('refuses to sign in a user of another tenant, with the reason on the page', async () => {
      const browser = new TestBrowser(origin);
      const signIn = await browser.follow(
        await browser.get(authorizationUrl(issuer, { clientId: publicClient, redirectUri: CALLBACK, resource: CONFORMANCE_RESOURCE, scope: 'mcp', codeChallenge: pkce().challenge, codeChallengeMethod: 'S256' })),
      );
      const login = formOf(signIn.body, 'login');
      expect(login).toBeDefined();
      const refused = await browser.post(login?.action ?? '', { ...DEMO, csrf: login?.csrf ?? '' });
      expect(refused.status).toBe(403);
      expect(refused.body).toContain('belongs to tenant &#34;conformance&#34;');
      expect(formOf(refused.body, 'login')).toBeDefined();
    });

    it('answers access_denied when a signed-in user of another tenant asks for a server', async () => {
      const browser = new TestBrowser(origin);
      await authorize(browser, issuer, { clientId: publicClient, redirectUri: CALLBACK, resource: DEMO_RESOURCE, scope: 'mcp', codeChallenge: pkce().challenge, codeChallengeMethod: 'S256' }, DEMO);
      // Same browser, still signed in as demo: the consent step refuses at once.
      const back = await browser.follow(
        await browser.get(authorizationUrl(issuer, { clientId: publicClient, redirectUri: CALLBACK, resource: CONFORMANCE_RESOURCE, scope: 'mcp', state: 'x', codeChallenge: pkce().challenge, codeChallengeMethod: 'S256' })),
      );
      const callback = new URL(back.location ?? '', origin);
      expect(callback.searchParams.get('error')).toBe('access_denied');
      expect(callback.searchParams.get('error_description')).toMatch(/belongs to tenant "conformance"/);
      expect(callback.searchParams.get('state')).toBe('x');
    });

    it('issues admin-API tokens to a platform administrator with roles and without tenant', async () => {
      const { verifier, challenge } = pkce();
      const adminAudience = `${origin}/admin/v1`;
      const { callback } = await authorize(new TestBrowser(origin), issuer, { clientId: publicClient, redirectUri: CALLBACK, resource: adminAudience, scope: 'admin', codeChallenge: challenge, codeChallengeMethod: 'S256' }, ADMIN);
      const tokens = await exchangeCode(publicClient, callback.searchParams.get('code') as string, verifier, adminAudience);
      expect(tokens.status, JSON.stringify(tokens.json)).toBe(200);
      const { payload } = await verifyAccessToken(tokens.json['access_token'] as string, adminAudience);
      expect(payload).toMatchObject({ aud: adminAudience, scope: 'admin', roles: ['platform-admin'] });
      expect(payload['tenant']).toBeUndefined();
    });

    it('does not let an ordinary user sign in for the admin API', async () => {
      const browser = new TestBrowser(origin);
      const signIn = await browser.follow(
        await browser.get(authorizationUrl(issuer, { clientId: publicClient, redirectUri: CALLBACK, resource: `${origin}/admin/v1`, scope: 'admin', codeChallenge: pkce().challenge, codeChallengeMethod: 'S256' })),
      );
      const login = formOf(signIn.body, 'login');
      const refused = await browser.post(login?.action ?? '', { ...DEMO, csrf: login?.csrf ?? '' });
      expect(refused.status).toBe(403);
      expect(refused.body).toContain('not an administrator');
    });
  });

  describe('CSRF on the forms (S-150)', () => {
    it('refuses a login or consent post with a missing or wrong token and changes nothing', async () => {
      const browser = new TestBrowser(origin);
      const signIn = await browser.follow(
        await browser.get(authorizationUrl(issuer, { clientId: publicClient, redirectUri: CALLBACK, resource: DEMO_RESOURCE, scope: 'mcp', codeChallenge: pkce().challenge, codeChallengeMethod: 'S256' })),
      );
      const login = formOf(signIn.body, 'login');
      expect(login).toBeDefined();
      const missing = await browser.post(login?.action ?? '', DEMO);
      expect(missing.status).toBe(403);
      const wrong = await browser.post(login?.action ?? '', { ...DEMO, csrf: 'x'.repeat(43) });
      expect(wrong.status).toBe(403);
      // Still the sign-in step: nothing changed.
      const again = await browser.get(signIn.url);
      expect(formOf(again.body, 'login')).toBeDefined();

      const consent = await browser.follow(await browser.post(login?.action ?? '', { ...DEMO, csrf: login?.csrf ?? '' }));
      const approve = formOf(consent.body, 'consent');
      expect(approve).toBeDefined();
      const forged = await browser.post(approve?.action ?? '', { csrf: login?.csrf.slice(1) ?? '' });
      expect(forged.status).toBe(403);
      expect(formOf((await browser.get(consent.url)).body, 'consent')).toBeDefined();
    });

    it('answers access_denied when the user denies', async () => {
      const browser = new TestBrowser(origin);
      const signIn = await browser.follow(
        await browser.get(authorizationUrl(issuer, { clientId: publicClient, redirectUri: CALLBACK, resource: DEMO_RESOURCE, scope: 'mcp', state: 'd', codeChallenge: pkce().challenge, codeChallengeMethod: 'S256' })),
      );
      const login = formOf(signIn.body, 'login');
      const consent = await browser.follow(await browser.post(login?.action ?? '', { ...DEMO, csrf: login?.csrf ?? '' }));
      const deny = formOf(consent.body, 'deny');
      const back = await browser.follow(await browser.post(deny?.action ?? '', { csrf: deny?.csrf ?? '' }));
      const callback = new URL(back.location ?? '', origin);
      expect(callback.searchParams.get('error')).toBe('access_denied');
      expect(callback.searchParams.get('state')).toBe('d');
    });

    it('shows a wrong password on the page', async () => {
      const browser = new TestBrowser(origin);
      const signIn = await browser.follow(
        await browser.get(authorizationUrl(issuer, { clientId: publicClient, redirectUri: CALLBACK, resource: DEMO_RESOURCE, scope: 'mcp', codeChallenge: pkce().challenge, codeChallengeMethod: 'S256' })),
      );
      const login = formOf(signIn.body, 'login');
      const wrong = await browser.post(login?.action ?? '', { username: 'demo', password: 'wrong', csrf: login?.csrf ?? '' });
      expect(wrong.status).toBe(200);
      expect(wrong.body).toContain('Wrong username or password.');
    });
  });

  describe('client credentials (machine clients)', () => {
    let machine: { id: string; secret: string };

    beforeAll(async () => {
      const created = await clients.create('demo', { client_name: 'Machine', grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic', scope: 'mcp' });
      machine = { id: created.client.clientId, secret: created.clientSecret as string };
    });

    it('issues a token for a server of the client tenant, with the scopes the client may have', async () => {
      const tokens = await postForm(`${issuer}/token`, { grant_type: 'client_credentials', resource: DEMO_RESOURCE, scope: 'mcp demo:crypto' }, machine);
      expect(tokens.status, JSON.stringify(tokens.json)).toBe(200);
      expect(tokens.json['scope']).toBe('mcp');
      const { payload } = await verifyAccessToken(tokens.json['access_token'] as string, DEMO_RESOURCE);
      expect(payload).toMatchObject({ sub: machine.id, client_id: machine.id, tenant: 'demo', scope: 'mcp' });
    });

    it('refuses a wrong secret, another tenant server and the admin API', async () => {
      expect((await postForm(`${issuer}/token`, { grant_type: 'client_credentials', resource: DEMO_RESOURCE, scope: 'mcp' }, { ...machine, secret: 'wrong' })).json['error']).toBe('invalid_client');
      expect((await postForm(`${issuer}/token`, { grant_type: 'client_credentials', resource: CONFORMANCE_RESOURCE, scope: 'mcp' }, machine)).json['error']).toBe('invalid_target');
      expect((await postForm(`${issuer}/token`, { grant_type: 'client_credentials', resource: `${origin}/admin/v1`, scope: 'admin' }, machine)).json['error']).toBe('invalid_target');
    });

    it('stores only a hash of the secret', async () => {
      const stored = await clients.providerMetadata(machine.id);
      expect(JSON.stringify(stored)).not.toContain(machine.secret);
    });
  });

  describe('revocation (RFC 7009) and introspection (RFC 7662)', () => {
    it('introspects a live refresh token, revokes it, and then it is inactive and unusable', async () => {
      const { tokens } = await signInAndExchange(publicClient);
      const refreshToken = tokens.json['refresh_token'] as string;
      const live = await postForm(`${issuer}/token/introspection`, { token: refreshToken, client_id: publicClient });
      expect(live.status, JSON.stringify(live.json)).toBe(200);
      expect(live.json).toMatchObject({ active: true, client_id: publicClient, iss: issuer, scope: 'mcp demo:crypto' });

      const revoked = await postForm(`${issuer}/token/revocation`, { token: refreshToken, token_type_hint: 'refresh_token', client_id: publicClient });
      expect(revoked.status).toBe(200);
      expect((await postForm(`${issuer}/token/introspection`, { token: refreshToken, client_id: publicClient })).json).toEqual({ active: false });
      expect((await postForm(`${issuer}/token`, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: publicClient })).json['error']).toBe('invalid_grant');
    });

    it('answers inactive to another client introspecting the token', async () => {
      const { tokens } = await signInAndExchange(publicClient);
      const other = await clients.create('demo', { client_name: 'Other', redirect_uris: [CALLBACK], grant_types: ['authorization_code'], token_endpoint_auth_method: 'client_secret_post' });
      const answer = await postForm(`${issuer}/token/introspection`, { token: tokens.json['refresh_token'] as string, client_id: other.client.clientId, client_secret: other.clientSecret as string });
      expect(answer.json).toEqual({ active: false });
    });
  });

  describe('dynamic client registration (RFC 7591, S-167, S-168)', () => {
    it('registers a native public client and runs the flow with it', async () => {
      const response = await fetch(`${issuer}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        // As the SDK clients register: with the scope they learnt from the challenge (`mcp`).
        body: JSON.stringify({ client_name: 'DCR Native', redirect_uris: [CALLBACK], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none', application_type: 'native', scope: 'mcp' }),
      });
      const registered = (await response.json()) as Record<string, string>;
      expect(response.status, JSON.stringify(registered)).toBe(201);
      expect(registered).toMatchObject({ application_type: 'native', token_endpoint_auth_method: 'none', registration_client_uri: expect.stringContaining(`${issuer}/reg/`) });
      expect(registered['registration_access_token']).toEqual(expect.any(String));

      const read = await fetch(registered['registration_client_uri'] as string, { headers: { authorization: `Bearer ${registered['registration_access_token']}` } });
      expect(read.status).toBe(200);

      // A self-registered client's scope is no ceiling: it may step up to what the user may have (S-142).
      const { tokens } = await signInAndExchange(registered['client_id'] as string);
      expect(tokens.status, JSON.stringify(tokens.json)).toBe(200);
      expect(tokens.json['scope']).toBe('mcp demo:crypto');
    });

    it('lets a native client use another loopback port than registered (RFC 8252 §7.3), a web client not', async () => {
      const native = await register({ client_name: 'Native', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none', application_type: 'native' });
      const web = await register({ client_name: 'Web', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none', application_type: 'web' });
      const browser = new TestBrowser(origin);
      const request = { redirectUri: 'http://127.0.0.1:45678/callback', resource: DEMO_RESOURCE, scope: 'mcp', codeChallenge: pkce().challenge, codeChallengeMethod: 'S256' };
      const nativePage = await browser.get(authorizationUrl(issuer, { ...request, clientId: native['client_id'] as string }));
      expect(nativePage.status).toBe(303);
      expect(nativePage.location).toContain('/oauth/interaction/');
      const webPage = await browser.get(authorizationUrl(issuer, { ...request, clientId: web['client_id'] as string }));
      expect(webPage.status).toBe(400);
    });

    it('returns a confidential client secret once and stores only its hash', async () => {
      const registered = await register({ client_name: 'Confidential', redirect_uris: [CALLBACK], token_endpoint_auth_method: 'client_secret_basic' });
      expect(registered['client_secret']).toEqual(expect.any(String));
      const read = (await (await fetch(registered['registration_client_uri'] as string, { headers: { authorization: `Bearer ${registered['registration_access_token']}` } })).json()) as Record<string, unknown>;
      expect(read['client_secret']).toBeUndefined();
      expect(JSON.stringify(await clients.providerMetadata(registered['client_id'] as string))).not.toContain(registered['client_secret']);
    });

    it('refuses client_credentials and http redirect URIs off loopback (S-170)', async () => {
      const machine = await fetch(`${issuer}/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'M', grant_types: ['client_credentials'], redirect_uris: [], response_types: [] }) });
      expect(machine.status).toBe(400);
      expect(((await machine.json()) as Record<string, string>)['error']).toBe('invalid_client_metadata');
      const plainHttp = await fetch(`${issuer}/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'H', redirect_uris: ['http://app.example.com/cb'] }) });
      expect(plainHttp.status).toBe(400);
      expect(await plainHttp.json()).toMatchObject({ error: 'invalid_redirect_uri', error_description: expect.stringMatching(/loopback/) });
    });

    async function register(metadata: Record<string, unknown>): Promise<Record<string, string>> {
      const response = await fetch(`${issuer}/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
      const body = (await response.json()) as Record<string, string>;
      expect(response.status, JSON.stringify(body)).toBe(201);
      return body;
    }
  });

  describe('Client ID Metadata Documents (S-162..S-165)', () => {
    it('fetches the document over HTTPS (extra CA, allowed host), warns about localhost-only redirects, and issues tokens', async () => {
      const clientId = `${cimd.origin}/client.json`;
      const { verifier, challenge } = pkce();
      const before = cimdFetches;
      const { callback, consent } = await authorize(new TestBrowser(origin), issuer, { clientId, redirectUri: CALLBACK, resource: DEMO_RESOURCE, scope: 'mcp', codeChallenge: challenge, codeChallengeMethod: 'S256' }, DEMO);
      expect(consent.body).toContain('CIMD Test Client');
      expect(consent.body).toContain('127.0.0.1:9999');
      expect(consent.body).toContain('class="warning"');
      const tokens = await exchangeCode(clientId, callback.searchParams.get('code') as string, verifier);
      expect(tokens.status, JSON.stringify(tokens.json)).toBe(200);
      const { payload } = await verifyAccessToken(tokens.json['access_token'] as string, DEMO_RESOURCE);
      expect(payload['client_id']).toBe(clientId);
      // Cached per Cache-Control: one fetch for the whole flow.
      expect(cimdFetches - before).toBe(1);
    });

    it('authenticates a document client with private_key_jwt and the keys of its document (S-166)', async () => {
      const { SignJWT, exportJWK, generateKeyPair } = await import('jose');
      const { publicKey, privateKey } = await generateKeyPair('RS256');
      clientJwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
      const clientId = `${cimd.origin}/pkjwt.json`;
      const { verifier, challenge } = pkce();
      const { callback } = await authorize(new TestBrowser(origin), issuer, { clientId, redirectUri: CALLBACK, resource: DEMO_RESOURCE, scope: 'mcp', codeChallenge: challenge, codeChallengeMethod: 'S256' }, DEMO);
      const exchange = async (assertion: string) =>
        postForm(`${issuer}/token`, {
          grant_type: 'authorization_code',
          code: callback.searchParams.get('code') as string,
          redirect_uri: CALLBACK,
          code_verifier: verifier,
          resource: DEMO_RESOURCE,
          client_id: clientId,
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          client_assertion: assertion,
        });
      const sign = (key: typeof privateKey) =>
        new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(clientId).setSubject(clientId).setAudience(issuer).setJti(pkce().verifier).setIssuedAt().setExpirationTime('1m').sign(key);
      const wrongKey = (await generateKeyPair('RS256')).privateKey;
      expect((await exchange(await sign(wrongKey))).json['error']).toBe('invalid_client');
      const tokens = await exchange(await sign(privateKey));
      expect(tokens.status, JSON.stringify(tokens.json)).toBe(200);
    });

    it('refuses a document URL that resolves to a private address when the host is not allowed', async () => {
      const port = new URL(cimd.origin).port;
      const page = await new TestBrowser(origin).get(
        authorizationUrl(issuer, { clientId: `https://localhost:${port}/client.json`, redirectUri: CALLBACK, resource: DEMO_RESOURCE, scope: 'mcp', codeChallenge: pkce().challenge, codeChallengeMethod: 'S256' }),
      );
      expect(page.status).toBe(400);
      expect(page.location).toBeUndefined();
      expect(page.body).toMatch(/not a public address/);
    });

    it('refuses a private literal address', async () => {
      const page = await new TestBrowser(origin).get(
        authorizationUrl(issuer, { clientId: 'https://10.0.0.1/client.json', redirectUri: CALLBACK, resource: DEMO_RESOURCE, scope: 'mcp', codeChallenge: pkce().challenge, codeChallengeMethod: 'S256' }),
      );
      expect(page.status).toBe(400);
      expect(page.body).toMatch(/not a public address/);
    });

    it('refuses an oversized document', async () => {
      const page = await new TestBrowser(origin).get(
        authorizationUrl(issuer, { clientId: `${cimd.origin}/big.json`, redirectUri: CALLBACK, resource: DEMO_RESOURCE, scope: 'mcp', codeChallenge: pkce().challenge, codeChallengeMethod: 'S256' }),
      );
      expect(page.status).toBe(400);
      expect(page.body).toMatch(/larger than 5 KiB/);
    });
  });

  describe('signing key rotation', () => {
    it('signs new tokens with the new key after a rotation, and still publishes the old one', async () => {
      const before = decodeJwt((await signInAndExchange(publicClient)).tokens.json['access_token'] as string).header['kid'];
      const machine = await machineClient();
      await app.get(SigningKeysService).rotate();
      const deadline = Date.now() + 10_000;
      let after = before;
      while (after === before && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        after = decodeJwt((await postForm(`${issuer}/token`, { grant_type: 'client_credentials', resource: DEMO_RESOURCE, scope: 'mcp' }, machine)).json['access_token'] as string).header['kid'];
      }
      expect(after).not.toBe(before);
      const jwks = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: Array<{ kid: string }> };
      expect(jwks.keys.map((key) => key.kid)).toEqual(expect.arrayContaining([before, after]));
    });

    async function machineClient(): Promise<{ id: string; secret: string }> {
      const created = await clients.create('demo', { client_name: 'Rotation', grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic', scope: 'mcp' });
      return { id: created.client.clientId, secret: created.clientSecret as string };
    }
  });
});

describe('the authorization server behind https (production issuers are https)', () => {
  let app: NestFastifyApplication;
  let origin: string;

  beforeAll(async () => {
    const port = await getFreePort();
    origin = `http://127.0.0.1:${port}`;
    const messaging = inProcessMessaging();

    @Module({
      imports: [
        MessagingModule.forRoot(messaging),
        // The app listens on plain http here, as behind a TLS-terminating proxy; its public URL is https.
        AuthorizationServerModule.register({ database: { kind: 'pglite' }, publicUrl: `https://auth.example.test`, mcpPublicUrl: MCP_PUBLIC_URL, seed: { demoUserPassword: DEMO.password } }),
      ],
      controllers: [FakeToolExecutorController],
    })
    class HttpsTestModule {}

    app = await NestFactory.create<NestFastifyApplication>(HttpsTestModule, new FastifyAdapter(), { logger: ['error'] });
    configureAuthorizationServerHttp(app);
    app.connectMicroservice(microserviceOptions(messaging), { inheritAppConfig: true });
    await app.init();
    await app.startAllMicroservices();
    await app.listen(port, '127.0.0.1');
  });

  afterAll(async () => {
    await app?.close();
  });

  it('sets __Host-/__Secure- prefixed, Secure, HttpOnly, SameSite=Lax cookies and https URLs (S-151)', async () => {
    const { client } = await app.get(ClientsService).create('demo', { client_name: 'C', redirect_uris: [CALLBACK], grant_types: ['authorization_code'], token_endpoint_auth_method: 'none' });
    const response = await fetch(
      authorizationUrl(`${origin}/oauth`, { clientId: client.clientId, redirectUri: CALLBACK, resource: DEMO_RESOURCE, scope: 'mcp', codeChallenge: pkce().challenge, codeChallengeMethod: 'S256' }),
      { redirect: 'manual' },
    );
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toMatch(/^\/oauth\/interaction\//);
    const cookies = response.headers.getSetCookie();
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) {
      expect(cookie).toMatch(/^__(Host|Secure)-oauth_/);
      expect(cookie).toMatch(/; secure/i);
      expect(cookie).toMatch(/; httponly/i);
      expect(cookie).toMatch(/; samesite=lax/i);
    }
    const metadata = (await (await fetch(`${origin}/.well-known/oauth-authorization-server/oauth`)).json()) as Record<string, string>;
    expect(metadata['issuer']).toBe('https://auth.example.test/oauth');
    expect(metadata['token_endpoint']).toBe('https://auth.example.test/oauth/token');
  });
});
