import 'reflect-metadata';
import { type KeyObject, randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authorizationServer } from '@mcp-platform/protocol-contracts';
import { inProcessMessaging, MessageBus } from '@mcp-platform/shared-messaging';
import {
  type AuthorizationOutcome,
  type AuthorizationRequestOptions,
  type AuthorizationServerMetadata,
  bootService,
  type BrowserPage,
  type ClientMetadataHost,
  createPkcePair,
  csrfOf,
  decodeJwt,
  discoverAuthorizationServer,
  exitUrlOf,
  findForm,
  generateTestSigningKey,
  getFreePort,
  OAuthBrowser,
  OAuthTestClient,
  pageOf,
  postForm,
  serviceSetups,
  signRs256,
  startClientMetadataHost,
} from '@mcp-platform/shared-testing';
import { configureAuthorizationServerHttp } from '../src/authorization-server.http';
import { AuthorizationServerModule } from '../src/authorization-server.module';
import { ClientsService } from '../src/clients/clients.service';
import { RolesService } from '../src/identity/roles/roles.service';
import { TenantsService } from '../src/identity/tenants/tenants.service';
import { PasswordHasher } from '../src/identity/users/password-hasher';
import { UsersService } from '../src/identity/users/users.service';
import { SigningKeysService } from '../src/signing-keys/signing-keys.service';
import { REGISTRATIONS_PER_HOUR } from '../src/throttling/registration.throttle';
import { ACCOUNT_FREE_ATTEMPTS, FREE_ATTEMPTS, SignInThrottle } from '../src/throttling/sign-in.throttle';
import { FakeTenantDataController, FakeToolExecutorController } from './fake-tool-executor';

const run = `oa${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const DEMO = { username: 'demo', password: 'demo-password-for-oauth-tests' };
const ADMIN = { username: 'root', password: 'admin-password-for-oauth-tests' };
const MCP_PUBLIC_URL = 'http://127.0.0.1:3000';
const DEMO_RESOURCE = `${MCP_PUBLIC_URL}/demo/default/mcp`;
const CONFORMANCE_RESOURCE = `${MCP_PUBLIC_URL}/conformance/everything/mcp`;
const CALLBACK = 'http://127.0.0.1:9999/callback';

/** The distributed mode's stores, and the embedded mode's (one PGlite, the in-process bus). */
const setups = serviceSetups('authorization-server', run);

describe.each(setups)('the OAuth 2.1 authorization server (oidc-provider) over $name', (setup) => {
  let app: NestFastifyApplication;
  let drop: (() => Promise<void>) | undefined;
  /** Serves the Client ID Metadata Documents: `client` (a public client) and `big` (over 5 KiB). */
  let cimd: ClientMetadataHost;
  let bigDocument: string;
  let origin: string;
  let issuer: string;
  let metadata: AuthorizationServerMetadata;
  let clients: ClientsService;
  /** A pre-registered public client of tenant demo (authorization code + refresh token). */
  let publicClient: string;

  beforeAll(async () => {
    Logger.overrideLogger(['error']);
    cimd = await startClientMetadataHost(
      { client_name: 'CIMD Test Client', redirect_uris: [CALLBACK], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' },
      { name: 'client' },
    );
    bigDocument = cimd.serve('big', { client_name: 'Big', redirect_uris: [CALLBACK], padding: 'x'.repeat(6 * 1024) });
    const database = await setup.database();
    drop = database.drop;
    const port = await getFreePort();
    origin = `http://127.0.0.1:${port}`;
    issuer = `${origin}/oauth`;
    app = await bootService(
      setup.messaging(),
      AuthorizationServerModule.register({
        database: database.options,
        publicUrl: origin,
        mcpPublicUrl: MCP_PUBLIC_URL,
        seed: { demoUserPassword: DEMO.password },
        bootstrapAdmin: ADMIN,
        cimd: { allowedHosts: ['127.0.0.1'], caPem: cimd.caPem },
      }),
      { controllers: [FakeToolExecutorController, FakeTenantDataController], configure: configureAuthorizationServerHttp },
    );
    await app.listen(port, '127.0.0.1');
    metadata = await discoverAuthorizationServer(issuer);
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

  /** The client `clientId` (redirect URI `CALLBACK`) as the test's hand-written OAuth client. */
  function client(clientId: string): OAuthTestClient {
    return OAuthTestClient.fromMetadata(metadata, { client_id: clientId, redirect_uris: [CALLBACK] });
  }

  /** Opens an authorization request (demo/default, scope `mcp` unless `options` says otherwise) and answers the page it lands on. */
  async function authorizationPage(browser: OAuthBrowser, options: AuthorizationRequestOptions = {}, clientId = publicClient): Promise<BrowserPage> {
    return pageOf(await browser.navigate(client(clientId).prepareAuthorization({ resource: DEMO_RESOURCE, scope: 'mcp', ...options }).url));
  }

  /** Plays the demo user one page at a time (sign in, approve), keeping the pages for assertions. */
  async function authorizeStepByStep(clientId: string, options: AuthorizationRequestOptions = {}) {
    const browser = new OAuthBrowser();
    const prepared = client(clientId).prepareAuthorization({ resource: DEMO_RESOURCE, scope: 'mcp', ...options });
    const signIn = pageOf(await browser.navigate(prepared.url));
    const consent = pageOf(await browser.submit(signIn, 'login', { fields: DEMO }));
    const outcome = client(clientId).readCallback(prepared, exitUrlOf(await browser.submit(consent, 'consent')));
    return { signIn, consent, outcome };
  }

  /** Exchanges the code of an authorization at the token endpoint (with its PKCE verifier) as the public client that asked. */
  function exchangeCode(clientId: string, outcome: AuthorizationOutcome, overrides: { verifier?: string; resource?: string } = {}) {
    return client(clientId).exchangeCode(outcome.code ?? '', {
      verifier: overrides.verifier ?? outcome.verifier,
      resource: overrides.resource ?? DEMO_RESOURCE,
    });
  }

  /** A full authorization code flow for the demo user on demo/default (state `st-1`); answers the token response. */
  async function signInAndExchange(clientId: string, request: AuthorizationRequestOptions = { scope: 'mcp demo:crypto' }) {
    const outcome = await client(clientId).authorize(new OAuthBrowser(), DEMO, { resource: DEMO_RESOURCE, state: 'st-1', ...request });
    expect(outcome.code, outcome.callback.href).toBeTruthy();
    return { tokens: await exchangeCode(clientId, outcome), callback: outcome.callback };
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
        [
          `${origin}/.well-known/oauth-authorization-server/oauth`,
          `${origin}/.well-known/openid-configuration/oauth`,
          `${issuer}/.well-known/openid-configuration`,
        ].map(async (url) => {
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
      const response = await fetch(`${issuer}/.well-known/openid-configuration`, {
        headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
      });
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
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
      expect(tokens.body).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'mcp demo:crypto' });
      expect(tokens.body['refresh_token']).toEqual(expect.any(String));

      const access = tokens.body['access_token'] as string;
      const { payload, protectedHeader } = await verifyAccessToken(access, DEMO_RESOURCE);
      const demoUser = (await app.get(UsersService).list('demo')).find((user) => user.username === 'demo');
      expect(protectedHeader).toMatchObject({ typ: 'at+jwt', alg: 'RS256' });
      expect(payload).toMatchObject({ iss: issuer, aud: DEMO_RESOURCE, sub: demoUser?.id, client_id: publicClient, tenant: 'demo', scope: 'mcp demo:crypto' });
      expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(600);
      expect(payload.jti).toEqual(expect.any(String));
    });

    it('renders the pages with the form contract, the security headers, escaping what the client chose', async () => {
      const { signIn, consent } = await authorizeStepByStep(publicClient);
      for (const page of [signIn, consent]) {
        expect(page.headers.get('x-frame-options')).toBe('DENY');
        expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
        expect(page.headers.get('cache-control')).toBe('no-store');
      }
      expect(signIn.body).toMatch(/<input type="text" id="username" name="username"/);
      expect(signIn.body).toMatch(/<input type="password" id="password" name="password"/);
      expect(signIn.body).toContain('Public &#60;Test&#62; Client');
      expect(signIn.body).not.toContain('<Test>');
      expect(findForm(consent.body, 'deny')).toBeDefined();
      expect(consent.body).toContain('127.0.0.1:9999');
      expect(consent.body).toContain(publicClient);
      expect(consent.body).toContain(DEMO_RESOURCE);
    });

    it('names the server by its title and its tenant on both pages, and says what each scope allows (not raw names)', async () => {
      const { signIn, consent } = await authorizeStepByStep(publicClient, { scope: 'mcp demo:crypto' });
      const text = (page: BrowserPage) => page.body.replace(/<style>[\s\S]*<\/style>/, '').replace(/<[^>]+>/g, ' ');
      // The fake executor's demo/default is titled "Demo"; the seeded tenant demo is named "Demo".
      expect(text(signIn)).toContain('Public &#60;Test&#62; Client  wants to use “Demo”, an MCP server of Demo');
      expect(text(signIn)).not.toContain('&#34;default&#34;');
      expect(text(consent)).toContain('wants to use “Demo”, an MCP server of Demo');
      expect(text(consent)).toContain('Connect to this MCP server');
      // The seeded member role describes demo:crypto.
      expect(text(consent)).toContain('Compute cryptographic hashes of text you give it');
    });

    it('shows an unknown client a page saying what happened and what to do, not a bare invalid_client', async () => {
      const page = await authorizationPage(new OAuthBrowser(), {}, 'registered-before-a-reset');
      expect(page.status).toBe(400);
      expect(page.location).toBeUndefined();
      const text = page.body.replace(/<[^>]+>/g, ' ');
      expect(text).toContain('This application is not registered here');
      expect(text).toContain('registered-before-a-reset');
      expect(text).toMatch(/remove the saved sign-in or registration for this server, then connect again/);
      expect(page.headers.get('x-frame-options')).toBe('DENY');
    });

    it('grants only what the roles allow and the server knows', async () => {
      const { tokens } = await signInAndExchange(publicClient, { scope: 'mcp demo:crypto admin other' });
      expect(tokens.body['scope']).toBe('mcp demo:crypto');
    });

    it('defaults a request without scope to the baseline scope', async () => {
      const { tokens } = await signInAndExchange(publicClient, {});
      expect(tokens.body['scope']).toBe('mcp');
    });

    it('refuses a request without PKCE and one with the plain method', async () => {
      const browser = new OAuthBrowser();
      const missingRedirect = exitUrlOf(
        await browser.navigate(client(publicClient).prepareAuthorization({ resource: DEMO_RESOURCE, scope: 'mcp', pkce: 'none' }).url),
      );
      expect(missingRedirect.searchParams.get('error')).toBe('invalid_request');
      expect(missingRedirect.searchParams.get('error_description')).toMatch(/PKCE/);
      expect(missingRedirect.searchParams.get('iss')).toBe(issuer);

      const plain = exitUrlOf(await browser.navigate(client(publicClient).prepareAuthorization({ resource: DEMO_RESOURCE, scope: 'mcp', pkce: 'plain' }).url));
      expect(plain.searchParams.get('error')).toBe('invalid_request');
    });

    it('refuses a redirect URI that differs by one character, without redirecting to it', async () => {
      const page = await authorizationPage(new OAuthBrowser(), { redirectUri: `${CALLBACK}x` });
      expect(page.status).toBe(400);
      expect(page.location).toBeUndefined();
      expect(page.body).toMatch(/redirect_uri/);
      expect(page.headers.get('x-frame-options')).toBe('DENY');
    });

    it('refuses a request without resource, and a resource that is no virtual server (RFC 8707)', async () => {
      const browser = new OAuthBrowser();
      const without = exitUrlOf(await browser.navigate(client(publicClient).prepareAuthorization({ scope: 'mcp' }).url));
      expect(without.searchParams.get('error')).toBe('invalid_target');
      const unknown = exitUrlOf(
        await browser.navigate(client(publicClient).prepareAuthorization({ resource: `${MCP_PUBLIC_URL}/demo/nope/mcp`, scope: 'mcp' }).url),
      );
      expect(unknown.searchParams.get('error')).toBe('invalid_target');
    });

    it('refuses a replayed authorization code and revokes what it issued', async () => {
      const outcome = await client(publicClient).authorize(new OAuthBrowser(), DEMO, { resource: DEMO_RESOURCE, scope: 'mcp' });
      const first = await exchangeCode(publicClient, outcome);
      expect(first.status).toBe(200);
      const replay = await exchangeCode(publicClient, outcome);
      expect(replay.status).toBe(400);
      expect(replay.body['error']).toBe('invalid_grant');
      const refresh = await client(publicClient).refresh(first.body['refresh_token'] as string);
      expect(refresh.body['error']).toBe('invalid_grant');
    });

    it('refuses a wrong code verifier', async () => {
      const outcome = await client(publicClient).authorize(new OAuthBrowser(), DEMO, { resource: DEMO_RESOURCE, scope: 'mcp' });
      const tokens = await exchangeCode(publicClient, outcome, { verifier: createPkcePair().verifier });
      expect(tokens.body['error']).toBe('invalid_grant');
    });
  });

  describe('refresh tokens (S-174)', () => {
    it('rotates the refresh token on every use, and a reused one revokes the whole family', async () => {
      const { tokens } = await signInAndExchange(publicClient);
      const first = tokens.body['refresh_token'] as string;
      const rotated = await client(publicClient).refresh(first);
      expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
      const second = rotated.body['refresh_token'] as string;
      expect(second).toEqual(expect.any(String));
      expect(second).not.toBe(first);
      await expect(verifyAccessToken(rotated.body['access_token'] as string, DEMO_RESOURCE)).resolves.toMatchObject({
        payload: { tenant: 'demo', scope: 'mcp demo:crypto' },
      });

      const reused = await client(publicClient).refresh(first);
      expect(reused.body).toMatchObject({ error: 'invalid_grant' });
      const afterReuse = await client(publicClient).refresh(second);
      expect(afterReuse.body).toMatchObject({ error: 'invalid_grant' });
    });

    it('refuses a refresh naming a resource outside the grant with invalid_target, and the refresh token still works', async () => {
      const { tokens } = await signInAndExchange(publicClient);
      const refreshToken = tokens.body['refresh_token'] as string;
      for (const resource of [CONFORMANCE_RESOURCE, `${MCP_PUBLIC_URL}/demo/nope/mcp`, `${origin}/admin/v1`]) {
        const refused = await client(publicClient).refresh(refreshToken, { resource });
        expect(refused.status, resource).toBe(400);
        expect(refused.body['error'], resource).toBe('invalid_target');
      }
      // The refused requests consumed nothing: the legitimate refresh is no reuse, and the grant lives on.
      const legitimate = await client(publicClient).refresh(refreshToken, { resource: DEMO_RESOURCE });
      expect(legitimate.status, JSON.stringify(legitimate.body)).toBe(200);
      const next = await client(publicClient).refresh(legitimate.body['refresh_token'] as string);
      expect(next.status, JSON.stringify(next.body)).toBe(200);
      // A real reuse is still caught.
      expect((await client(publicClient).refresh(refreshToken)).body['error']).toBe('invalid_grant');
    });
  });

  describe('tenants and roles', () => {
    it('refuses to sign in a user of another tenant, with the reason on the page', async () => {
      const browser = new OAuthBrowser();
      const signIn = await authorizationPage(browser, { resource: CONFORMANCE_RESOURCE });
      const refused = pageOf(await browser.submit(signIn, 'login', { fields: DEMO, follow: false }));
      expect(refused.status).toBe(403);
      expect(refused.body).toContain('belongs to tenant &#34;conformance&#34;');
      expect(findForm(refused.body, 'login')).toBeDefined();
    });

    it('answers access_denied when a signed-in user of another tenant asks for a server', async () => {
      const browser = new OAuthBrowser();
      await client(publicClient).authorize(browser, DEMO, { resource: DEMO_RESOURCE, scope: 'mcp' });
      // Same browser, still signed in as demo: the consent step refuses at once.
      const callback = exitUrlOf(
        await browser.navigate(client(publicClient).prepareAuthorization({ resource: CONFORMANCE_RESOURCE, scope: 'mcp', state: 'x' }).url),
      );
      expect(callback.searchParams.get('error')).toBe('access_denied');
      expect(callback.searchParams.get('error_description')).toMatch(/belongs to tenant "conformance"/);
      expect(callback.searchParams.get('state')).toBe('x');
    });

    it('issues admin-API tokens to a platform administrator with roles and without tenant', async () => {
      const adminAudience = `${origin}/admin/v1`;
      const outcome = await client(publicClient).authorize(new OAuthBrowser(), ADMIN, { resource: adminAudience, scope: 'admin' });
      const tokens = await exchangeCode(publicClient, outcome, { resource: adminAudience });
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
      const { payload } = await verifyAccessToken(tokens.body['access_token'] as string, adminAudience);
      expect(payload).toMatchObject({ aud: adminAudience, scope: 'admin', roles: ['platform-admin'] });
      expect(payload['tenant']).toBeUndefined();
    });

    it('does not let an ordinary user sign in for the admin API', async () => {
      const browser = new OAuthBrowser();
      const signIn = await authorizationPage(browser, { resource: `${origin}/admin/v1`, scope: 'admin' });
      const refused = pageOf(await browser.submit(signIn, 'login', { fields: DEMO, follow: false }));
      expect(refused.status).toBe(403);
      expect(refused.body).toContain('not an administrator');
    });
  });

  describe('CSRF on the forms (S-150)', () => {
    it('refuses a login or consent post with a missing or wrong token and changes nothing', async () => {
      const browser = new OAuthBrowser();
      const signIn = await authorizationPage(browser);
      const missing = pageOf(await browser.submit(signIn, 'login', { fields: DEMO, omit: ['csrf'], follow: false }));
      expect(missing.status).toBe(403);
      const wrong = pageOf(await browser.submit(signIn, 'login', { fields: { ...DEMO, csrf: 'x'.repeat(43) }, follow: false }));
      expect(wrong.status).toBe(403);
      // Still the sign-in step: nothing changed.
      const again = pageOf(await browser.navigate(signIn.url));
      expect(findForm(again.body, 'login')).toBeDefined();

      const consent = pageOf(await browser.submit(signIn, 'login', { fields: DEMO }));
      expect(findForm(consent.body, 'consent')).toBeDefined();
      const forged = pageOf(await browser.submit(consent, 'consent', { fields: { csrf: csrfOf(signIn, 'login')?.slice(1) ?? '' }, follow: false }));
      expect(forged.status).toBe(403);
      expect(findForm(pageOf(await browser.navigate(consent.url)).body, 'consent')).toBeDefined();
    });

    it('answers access_denied when the user denies', async () => {
      const outcome = await client(publicClient).authorize(new OAuthBrowser(), DEMO, { resource: DEMO_RESOURCE, scope: 'mcp', state: 'd', consent: 'deny' });
      expect(outcome.error).toBe('access_denied');
      expect(outcome.code).toBeUndefined();
      expect(outcome.callback.searchParams.get('state')).toBe('d');
    });

    it('shows a wrong password on the page', async () => {
      const browser = new OAuthBrowser();
      const signIn = await authorizationPage(browser);
      const wrong = pageOf(await browser.submit(signIn, 'login', { fields: { username: 'demo', password: 'wrong' }, follow: false }));
      expect(wrong.status).toBe(200);
      expect(wrong.body).toContain('Wrong username or password.');
    });
  });

  describe('sign-in throttle (cluster-wide, in the database)', () => {
    /** A member of tenant demo of its own, so the throttle's counts of one test touch no other. */
    async function member(username: string): Promise<{ username: string; password: string }> {
      const user = { username, password: `${username}-right-password` };
      await app.get(UsersService).create('demo', { ...user, roles: ['member'] });
      return user;
    }

    afterEach(() => {
      vi.useRealTimers();
    });

    /** Stops the clock (`Date` only): no pause may end while a test runs, so the counts are exact. */
    function stopTheClock(): void {
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    }

    it('checks at most the free attempts of 100 wrong passwords sent at once (the attempt is counted before the hash)', async () => {
      const racer = await member(`racer-${randomUUID().slice(0, 8)}`);
      const browser = new OAuthBrowser();
      const signIn = await authorizationPage(browser);
      const hasher = app.get(PasswordHasher);
      const verify = vi.spyOn(hasher, 'verify');
      stopTheClock();
      try {
        const answers = await Promise.all(
          Array.from(
            { length: 100 },
            async () =>
              pageOf(await browser.submit(signIn, 'login', { fields: { username: racer.username, password: 'wrong password' }, follow: false })).status,
          ),
        );
        expect(verify).toHaveBeenCalledTimes(FREE_ATTEMPTS);
        expect(answers.filter((status) => status === 200)).toHaveLength(FREE_ATTEMPTS);
        expect(answers.filter((status) => status === 429)).toHaveLength(100 - FREE_ATTEMPTS);
      } finally {
        verify.mockRestore();
      }
      // Blocked for the right password too, until the pause is over.
      const blocked = pageOf(await browser.submit(signIn, 'login', { fields: racer, follow: false }));
      expect(blocked.status).toBe(429);
      expect(blocked.body).toContain('Too many failed attempts');
    });

    it('keeps a blocked user blocked after 10,050 failures under other names (nothing is evicted)', async () => {
      const throttle = app.get(SignInThrottle);
      const victim = `victim-${randomUUID().slice(0, 8)}`;
      stopTheClock();
      for (let attempt = 0; attempt < FREE_ATTEMPTS; attempt += 1) expect((await throttle.reserve(victim, '10.9.9.9', { knownBrowser: false })).ok).toBe(true);
      expect((await throttle.reserve(victim, '10.9.9.9', { knownBrowser: false })).ok).toBe(false);
      for (let batch = 0; batch < 10_050; batch += 150) {
        await Promise.all(
          Array.from({ length: Math.min(150, 10_050 - batch) }, (_, index) => throttle.reserve(`filler-${batch + index}`, '10.9.9.9', { knownBrowser: true })),
        );
      }
      expect(await throttle.reserve(victim, '10.9.9.9', { knownBrowser: false })).toMatchObject({ ok: false, retryAfterMs: expect.any(Number) });
    }, 120_000);

    it('pauses an account guessed at from many addresses, yet lets a browser that signed in as it before through', async () => {
      const owner = await member(`owner-${randomUUID().slice(0, 8)}`);
      stopTheClock();
      // The owner signed in once in this browser: it is known from now on.
      const ownersBrowser = new OAuthBrowser();
      await client(publicClient).authorize(ownersBrowser, owner, { resource: DEMO_RESOURCE, scope: 'mcp' });
      const throttle = app.get(SignInThrottle);
      for (let attempt = 0; attempt < ACCOUNT_FREE_ATTEMPTS; attempt += 1) await throttle.reserve(owner.username, `10.8.0.${attempt}`, { knownBrowser: false });

      const stranger = new OAuthBrowser();
      const refused = pageOf(await stranger.submit(await authorizationPage(stranger), 'login', { fields: owner, follow: false }));
      expect(refused.status).toBe(429);
      // A new sign-in in the owner's browser (prompt=login: the browser's session would skip the form).
      const signIn = await authorizationPage(ownersBrowser, { extra: { prompt: 'login' } });
      const accepted = await ownersBrowser.submit(signIn, 'login', { fields: owner, follow: false });
      // Signed in: the provider resumes the authorization (a redirect), no 429 page.
      expect(accepted.kind === 'page' ? `page ${accepted.page.status}` : accepted.url.pathname).toMatch(/^\/oauth\/auth\//);
    });

    it('forgets the browsers an account was known in once its password changes: a cookie kept by whoever knew the old one skips no pause', async () => {
      const owner = await member(`reset-${randomUUID().slice(0, 8)}`);
      stopTheClock();
      // Someone who knew the old password signed in once, and keeps the browser's cookie.
      const formerBrowser = new OAuthBrowser();
      await client(publicClient).authorize(formerBrowser, owner, { resource: DEMO_RESOURCE, scope: 'mcp' });
      const users = app.get(UsersService);
      const [account] = (await users.list('demo')).filter((user) => user.username === owner.username);
      const newPassword = `${owner.username}-new-password`;
      await users.update('demo', account?.id ?? '', { password: newPassword });
      const throttle = app.get(SignInThrottle);
      for (let attempt = 0; attempt < ACCOUNT_FREE_ATTEMPTS; attempt += 1) await throttle.reserve(owner.username, `10.7.0.${attempt}`, { knownBrowser: false });

      const signIn = await authorizationPage(formerBrowser, { extra: { prompt: 'login' } });
      const refused = pageOf(
        await formerBrowser.submit(signIn, 'login', { fields: { username: owner.username, password: 'a guess at the new one' }, follow: false }),
      );
      expect(refused.status).toBe(429);
    });
  });

  describe('obtainable_scope: what a step-up could get, for the broker to list (issue 13 item 13)', () => {
    it("names the server's scopes the user's roles allow, granted or not, and refreshes carry it too", async () => {
      const { tokens } = await signInAndExchange(publicClient, { scope: 'mcp' });
      expect(tokens.body['scope']).toBe('mcp');
      const { payload } = await verifyAccessToken(tokens.body['access_token'] as string, DEMO_RESOURCE);
      expect(payload).toMatchObject({ scope: 'mcp', obtainable_scope: 'mcp demo:crypto' });
      const refreshed = await postForm(`${issuer}/token`, {
        grant_type: 'refresh_token',
        refresh_token: tokens.body['refresh_token'] as string,
        client_id: publicClient,
      });
      expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
      expect((await verifyAccessToken(refreshed.body['access_token'] as string, DEMO_RESOURCE)).payload).toMatchObject({ obtainable_scope: 'mcp demo:crypto' });
    });

    it('leaves out what the user’s roles do not allow, and what a pre-registered client may not have', async () => {
      const roles = app.get(RolesService);
      await roles.put('demo', { name: 'reader', scopes: ['mcp'] });
      const reader = { username: `reader-${run}`, password: 'reader-password-0123' };
      await app.get(UsersService).create('demo', { ...reader, roles: ['reader'] });
      const outcome = await client(publicClient).authorize(new OAuthBrowser(), reader, { resource: DEMO_RESOURCE, scope: 'mcp' });
      const readerToken = await exchangeCode(publicClient, outcome);
      expect((await verifyAccessToken(readerToken.body['access_token'] as string, DEMO_RESOURCE)).payload).toMatchObject({
        scope: 'mcp',
        obtainable_scope: 'mcp',
      });

      const limited = (
        await clients.create('demo', {
          client_name: 'Limited',
          redirect_uris: [CALLBACK],
          grant_types: ['authorization_code'],
          token_endpoint_auth_method: 'none',
          scope: 'mcp',
        })
      ).client.clientId;
      const { tokens } = await signInAndExchange(limited, { scope: 'mcp' });
      expect((await verifyAccessToken(tokens.body['access_token'] as string, DEMO_RESOURCE)).payload).toMatchObject({ scope: 'mcp', obtainable_scope: 'mcp' });
    });

    it("gives a client_credentials token its client's allowed scope within the server's, as its ceiling", async () => {
      const created = await clients.create('demo', {
        client_name: 'Ceiling',
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'mcp demo',
      });
      const machine = { id: created.client.clientId, secret: created.clientSecret as string };
      const tokens = await postForm(
        `${issuer}/token`,
        { grant_type: 'client_credentials', resource: DEMO_RESOURCE, scope: 'mcp' },
        { clientSecretBasic: machine },
      );
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
      expect((await verifyAccessToken(tokens.body['access_token'] as string, DEMO_RESOURCE)).payload).toMatchObject({
        scope: 'mcp',
        obtainable_scope: 'mcp demo:crypto',
      });
    });
  });

  describe('client credentials (machine clients)', () => {
    let machine: { id: string; secret: string };

    beforeAll(async () => {
      const created = await clients.create('demo', {
        client_name: 'Machine',
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'mcp',
      });
      machine = { id: created.client.clientId, secret: created.clientSecret as string };
    });

    it('issues a token for a server of the client tenant, with the scopes the client may have', async () => {
      const tokens = await postForm(
        `${issuer}/token`,
        { grant_type: 'client_credentials', resource: DEMO_RESOURCE, scope: 'mcp demo:crypto' },
        { clientSecretBasic: machine },
      );
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
      expect(tokens.body['scope']).toBe('mcp');
      const { payload } = await verifyAccessToken(tokens.body['access_token'] as string, DEMO_RESOURCE);
      expect(payload).toMatchObject({ sub: machine.id, client_id: machine.id, tenant: 'demo', scope: 'mcp' });
    });

    it('refuses a wrong secret, another tenant server and the admin API', async () => {
      expect(
        (
          await postForm(
            `${issuer}/token`,
            { grant_type: 'client_credentials', resource: DEMO_RESOURCE, scope: 'mcp' },
            { clientSecretBasic: { ...machine, secret: 'wrong' } },
          )
        ).body['error'],
      ).toBe('invalid_client');
      expect(
        (await postForm(`${issuer}/token`, { grant_type: 'client_credentials', resource: CONFORMANCE_RESOURCE, scope: 'mcp' }, { clientSecretBasic: machine }))
          .body['error'],
      ).toBe('invalid_target');
      expect(
        (
          await postForm(
            `${issuer}/token`,
            { grant_type: 'client_credentials', resource: `${origin}/admin/v1`, scope: 'admin' },
            { clientSecretBasic: machine },
          )
        ).body['error'],
      ).toBe('invalid_target');
    });

    it('binds tokens to the tenant’s id, refuses every token to a disabled tenant, and revokes the tokens of a disabled or deleted one', async () => {
      const tenants = app.get(TenantsService);
      const resource = `${MCP_PUBLIC_URL}/lifecycle/main/mcp`;
      const first = await tenants.create({ slug: 'lifecycle', name: 'Lifecycle' });
      const created = await clients.create('lifecycle', {
        client_name: 'Robot',
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'mcp',
      });
      const robot = { id: created.client.clientId, secret: created.clientSecret as string };
      const tokenRequest = () => postForm(`${issuer}/token`, { grant_type: 'client_credentials', resource, scope: 'mcp' }, { clientSecretBasic: robot });
      const revocations = async () => (await app.get(MessageBus).request(authorizationServer.listRevocations, {})).revocations;

      const issued = await tokenRequest();
      expect(issued.status, JSON.stringify(issued.body)).toBe(200);
      const { payload } = await verifyAccessToken(issued.body['access_token'] as string, resource);
      expect(payload).toMatchObject({ tenant: 'lifecycle', tenant_id: first.id, sub: robot.id });
      // A user of the tenant with a refresh token, through the authorization code grant.
      const member = { username: 'lifecycle-member', password: 'lifecycle-member-password' };
      await app.get(UsersService).create('lifecycle', { ...member, roles: ['member'] });
      const dcr = await OAuthTestClient.register(issuer, { redirectUris: [CALLBACK] });
      const signedIn = await dcr.authorize(new OAuthBrowser(), member, { resource, scope: 'mcp' });
      const userTokens = await dcr.exchangeCode(signedIn.code ?? '', { verifier: signedIn.verifier ?? '', resource });
      expect(userTokens.status, JSON.stringify(userTokens.body)).toBe(200);

      await tenants.update('lifecycle', { disabled: true });
      const refused = await tokenRequest();
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: 'invalid_target', error_description: expect.stringContaining('disabled') });
      // Every grant: the refresh token stops, and an authorization request is refused before anyone signs in.
      expect((await dcr.refresh(userTokens.tokens?.refresh_token ?? '', { resource })).body['error']).toBe('invalid_grant');
      const authorization = exitUrlOf(await new OAuthBrowser().navigate(dcr.prepareAuthorization({ resource, scope: 'mcp' }).url));
      expect(authorization.searchParams.get('error')).toBe('invalid_target');
      expect(authorization.searchParams.get('error_description')).toBe('tenant lifecycle is disabled');
      expect(await revocations()).toContainEqual({ kind: 'tenant', id: first.id, tenant: 'lifecycle', revokedAt: expect.any(Number) });

      await tenants.update('lifecycle', { disabled: false });
      expect((await tokenRequest()).status).toBe(200);

      await tenants.delete('lifecycle');
      const again = await tenants.create({ slug: 'lifecycle', name: 'Lifecycle again' });
      expect(again.id).not.toBe(first.id);
      // The deleted tenant's client went with it; its tokens' tenant id stays revoked for their lifetime.
      expect((await tokenRequest()).body['error']).toBe('invalid_client');
      expect((await revocations()).filter((revocation) => revocation.id === first.id)).toHaveLength(1);
      await tenants.delete('lifecycle');
    });

    it('stores only a hash of the secret', async () => {
      const stored = await clients.providerMetadata(machine.id);
      expect(JSON.stringify(stored)).not.toContain(machine.secret);
    });
  });

  describe('revocation (RFC 7009) and introspection (RFC 7662)', () => {
    it('introspects a live refresh token, revokes it, and then it is inactive and unusable', async () => {
      const { tokens } = await signInAndExchange(publicClient);
      const refreshToken = tokens.body['refresh_token'] as string;
      const live = await postForm(`${issuer}/token/introspection`, { token: refreshToken, client_id: publicClient });
      expect(live.status, JSON.stringify(live.body)).toBe(200);
      expect(live.body).toMatchObject({ active: true, client_id: publicClient, iss: issuer, scope: 'mcp demo:crypto' });

      const revoked = await postForm(`${issuer}/token/revocation`, { token: refreshToken, token_type_hint: 'refresh_token', client_id: publicClient });
      expect(revoked.status).toBe(200);
      expect((await postForm(`${issuer}/token/introspection`, { token: refreshToken, client_id: publicClient })).body).toEqual({ active: false });
      expect((await client(publicClient).refresh(refreshToken)).body['error']).toBe('invalid_grant');
    });

    it('answers inactive to another client introspecting the token', async () => {
      const { tokens } = await signInAndExchange(publicClient);
      const other = await clients.create('demo', {
        client_name: 'Other',
        redirect_uris: [CALLBACK],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_post',
      });
      const answer = await postForm(`${issuer}/token/introspection`, {
        token: tokens.body['refresh_token'] as string,
        client_id: other.client.clientId,
        client_secret: other.clientSecret as string,
      });
      expect(answer.body).toEqual({ active: false });
    });
  });

  describe('dynamic client registration (RFC 7591, S-167, S-168)', () => {
    it('registers a native public client and runs the flow with it', async () => {
      const response = await fetch(`${issuer}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        // As the SDK clients register: with the scope they learnt from the challenge (`mcp`).
        body: JSON.stringify({
          client_name: 'DCR Native',
          redirect_uris: [CALLBACK],
          grant_types: ['authorization_code', 'refresh_token'],
          token_endpoint_auth_method: 'none',
          application_type: 'native',
          scope: 'mcp',
        }),
      });
      const registered = (await response.json()) as Record<string, string>;
      expect(response.status, JSON.stringify(registered)).toBe(201);
      expect(registered).toMatchObject({
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        registration_client_uri: expect.stringContaining(`${issuer}/reg/`),
      });
      expect(registered['registration_access_token']).toEqual(expect.any(String));

      const read = await fetch(registered['registration_client_uri'] as string, {
        headers: { authorization: `Bearer ${registered['registration_access_token']}` },
      });
      expect(read.status).toBe(200);

      // A self-registered client's scope is no ceiling: it may step up to what the user may have (S-142).
      const { tokens } = await signInAndExchange(registered['client_id'] as string);
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
      expect(tokens.body['scope']).toBe('mcp demo:crypto');
    });

    it('lets a native client use another loopback port than registered (RFC 8252 §7.3), a web client not', async () => {
      const native = await register({
        client_name: 'Native',
        redirect_uris: ['http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
      });
      const web = await register({
        client_name: 'Web',
        redirect_uris: ['http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'none',
        application_type: 'web',
      });
      const browser = new OAuthBrowser();
      const request = { redirectUri: 'http://127.0.0.1:45678/callback', resource: DEMO_RESOURCE, scope: 'mcp' };
      const nativeAnswer = await browser.request(client(native['client_id'] as string).prepareAuthorization(request).url);
      expect(nativeAnswer.status).toBe(303);
      expect(nativeAnswer.location).toContain('/oauth/interaction/');
      const webAnswer = await browser.request(client(web['client_id'] as string).prepareAuthorization(request).url);
      expect(webAnswer.status).toBe(400);
    });

    it('returns a confidential client secret once and stores only its hash', async () => {
      const registered = await register({ client_name: 'Confidential', redirect_uris: [CALLBACK], token_endpoint_auth_method: 'client_secret_basic' });
      expect(registered['client_secret']).toEqual(expect.any(String));
      const read = (await (
        await fetch(registered['registration_client_uri'] as string, { headers: { authorization: `Bearer ${registered['registration_access_token']}` } })
      ).json()) as Record<string, unknown>;
      expect(read['client_secret']).toBeUndefined();
      expect(JSON.stringify(await clients.providerMetadata(registered['client_id'] as string))).not.toContain(registered['client_secret']);
    });

    it('refuses client_credentials and http redirect URIs off loopback (S-170)', async () => {
      const machine = await fetch(`${issuer}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'M', grant_types: ['client_credentials'], redirect_uris: [], response_types: [] }),
      });
      expect(machine.status).toBe(400);
      expect(((await machine.json()) as Record<string, string>)['error']).toBe('invalid_client_metadata');
      const plainHttp = await fetch(`${issuer}/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'H', redirect_uris: ['http://app.example.com/cb'] }),
      });
      expect(plainHttp.status).toBe(400);
      expect(await plainHttp.json()).toMatchObject({ error: 'invalid_redirect_uri', error_description: expect.stringMatching(/loopback/) });
    });

    it(`refuses an address's registration beyond ${REGISTRATIONS_PER_HOUR} an hour with 429: registering is open, and every client is stored`, async () => {
      const from = async (remoteAddress: string) => {
        const answer = await app.inject({
          method: 'POST',
          url: '/oauth/reg',
          remoteAddress,
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ client_name: 'Flood', redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' }),
        });
        return { status: answer.statusCode, retryAfter: answer.headers['retry-after'], body: answer.json<Record<string, unknown>>() };
      };
      // No window may end while the test runs.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
      try {
        for (let batch = 0; batch < REGISTRATIONS_PER_HOUR; batch += 50) {
          const statuses = await Promise.all(
            Array.from({ length: Math.min(50, REGISTRATIONS_PER_HOUR - batch) }, async () => (await from('203.0.113.77')).status),
          );
          expect(statuses.filter((status) => status !== 201)).toEqual([]);
        }
        const refused = await from('203.0.113.77');
        expect(refused.status).toBe(429);
        expect(Number(refused.retryAfter)).toBeGreaterThan(0);
        expect(refused.body).toMatchObject({ error: 'temporarily_unavailable' });
        // Another address is not held back.
        expect((await from('203.0.113.78')).status).toBe(201);
      } finally {
        vi.useRealTimers();
      }
    }, 120_000);

    async function register(metadata: Record<string, unknown>): Promise<Record<string, string>> {
      const response = await fetch(`${issuer}/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
      const body = (await response.json()) as Record<string, string>;
      expect(response.status, JSON.stringify(body)).toBe(201);
      return body;
    }
  });

  describe('Client ID Metadata Documents (S-162..S-165)', () => {
    it('fetches the document over HTTPS (extra CA, allowed host), warns about localhost-only redirects, and issues tokens', async () => {
      const clientId = cimd.url;
      const before = cimd.requests.length;
      const { outcome, consent } = await authorizeStepByStep(clientId);
      expect(consent.body).toContain('CIMD Test Client');
      expect(consent.body).toContain('127.0.0.1:9999');
      expect(consent.body).toContain('class="warning"');
      const tokens = await exchangeCode(clientId, outcome);
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
      const { payload } = await verifyAccessToken(tokens.body['access_token'] as string, DEMO_RESOURCE);
      expect(payload['client_id']).toBe(clientId);
      // Cached per Cache-Control: one fetch for the whole flow.
      expect(cimd.requests.slice(before)).toEqual([new URL(clientId).pathname]);
    });

    it('authenticates a document client with private_key_jwt and the keys of its document (S-166)', async () => {
      const key = generateTestSigningKey('k1');
      const clientId = cimd.serve('pkjwt', {
        client_name: 'Key Client',
        redirect_uris: [CALLBACK],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [key.publicJwk] },
      });
      const outcome = await client(clientId).authorize(new OAuthBrowser(), DEMO, { resource: DEMO_RESOURCE, scope: 'mcp' });
      const exchange = (assertion: string) =>
        client(clientId).exchangeCode(outcome.code ?? '', {
          verifier: outcome.verifier,
          resource: DEMO_RESOURCE,
          extra: { client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion },
        });
      // RFC 7523 §3: the client authenticates with a JWT it signs, iss = sub = its client_id, aud = the issuer.
      const assertion = (privateKey: KeyObject) => {
        const now = Math.floor(Date.now() / 1_000);
        return signRs256({ kid: 'k1' }, { iss: clientId, sub: clientId, aud: issuer, jti: randomUUID(), iat: now, exp: now + 60 }, privateKey);
      };
      expect((await exchange(assertion(generateTestSigningKey().privateKey))).body['error']).toBe('invalid_client');
      const tokens = await exchange(assertion(key.privateKey));
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    });

    // Issue 13 item 5: whoever names a client id learns an error id, never how the platform's network resolves it.
    const GENERIC_FETCH_FAILURE = /the document could not be fetched \(error id [0-9a-f-]{36}\)/;

    it('refuses a document URL that resolves to a private address when the host is not allowed, without naming the address', async () => {
      const byName = new URL(cimd.url);
      byName.hostname = 'localhost';
      const page = await authorizationPage(new OAuthBrowser(), {}, byName.href);
      expect(page.status).toBe(400);
      expect(page.location).toBeUndefined();
      expect(page.body).toMatch(GENERIC_FETCH_FAILURE);
      expect(page.body).not.toMatch(/127\.0\.0\.1|::1|resolves|public address/);
    });

    it('refuses a private literal address without saying why', async () => {
      const page = await authorizationPage(new OAuthBrowser(), {}, 'https://10.0.0.1/client.json');
      expect(page.status).toBe(400);
      expect(page.body).toMatch(GENERIC_FETCH_FAILURE);
      expect(page.body).not.toMatch(/10\.0\.0\.1 is|public address/);
    });

    it('answers the token endpoint of an unauthenticated caller with invalid_client and an error id, never the address or the DNS answer', async () => {
      const byName = new URL(cimd.url);
      byName.hostname = 'localhost';
      const answers = [
        await postForm(`${issuer}/token`, {
          grant_type: 'authorization_code',
          code: 'x',
          code_verifier: 'y'.repeat(43),
          redirect_uri: CALLBACK,
          client_id: byName.href,
        }),
        await postForm(`${issuer}/token`, { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'https://no-such-host.invalid/client.json' }),
      ];
      for (const answer of answers) {
        expect(answer.status, JSON.stringify(answer.body)).toBe(400);
        expect(answer.body).toMatchObject({ error: 'invalid_client', error_description: expect.stringMatching(GENERIC_FETCH_FAILURE) });
        expect(JSON.stringify(answer.body)).not.toMatch(/127\.0\.0\.1|resolves|public address|ENOTFOUND|getaddrinfo/);
      }
    });

    it('refuses an oversized document', async () => {
      const page = await authorizationPage(new OAuthBrowser(), {}, bigDocument);
      expect(page.status).toBe(400);
      expect(page.body).toMatch(/larger than 5 KiB/);
    });
  });

  describe('signing key rotation', () => {
    it('signs new tokens with the new key after a rotation, and still publishes the old one', async () => {
      const before = decodeJwt((await signInAndExchange(publicClient)).tokens.body['access_token'] as string).header['kid'];
      const machine = await machineClient();
      await app.get(SigningKeysService).rotate();
      const deadline = Date.now() + 10_000;
      let after = before;
      while (after === before && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        after = decodeJwt(
          (await postForm(`${issuer}/token`, { grant_type: 'client_credentials', resource: DEMO_RESOURCE, scope: 'mcp' }, { clientSecretBasic: machine })).body[
            'access_token'
          ] as string,
        ).header['kid'];
      }
      expect(after).not.toBe(before);
      const jwks = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: Array<{ kid: string }> };
      expect(jwks.keys.map((key) => key.kid)).toEqual(expect.arrayContaining([before, after]));
    });

    async function machineClient(): Promise<{ id: string; secret: string }> {
      const created = await clients.create('demo', {
        client_name: 'Rotation',
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'mcp',
      });
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
    app = await bootService(
      inProcessMessaging(),
      // The app listens on plain http here, as behind a TLS-terminating proxy; its public URL is https.
      AuthorizationServerModule.register({
        database: { kind: 'pglite' },
        publicUrl: `https://auth.example.test`,
        mcpPublicUrl: MCP_PUBLIC_URL,
        seed: { demoUserPassword: DEMO.password },
      }),
      { controllers: [FakeToolExecutorController, FakeTenantDataController], configure: configureAuthorizationServerHttp },
    );
    await app.listen(port, '127.0.0.1');
  });

  afterAll(async () => {
    await app?.close();
  });

  it('sets __Host-/__Secure- prefixed, Secure, HttpOnly, SameSite=Lax cookies and https URLs (S-151)', async () => {
    const { client } = await app
      .get(ClientsService)
      .create('demo', { client_name: 'C', redirect_uris: [CALLBACK], grant_types: ['authorization_code'], token_endpoint_auth_method: 'none' });
    // The published endpoints are https://auth.example.test/...; the test reaches the same paths on the listener.
    const oauthClient = OAuthTestClient.fromMetadata(
      { issuer: 'https://auth.example.test/oauth', authorization_endpoint: `${origin}/oauth/auth`, token_endpoint: `${origin}/oauth/token` },
      { client_id: client.clientId, redirect_uris: [CALLBACK] },
    );
    const response = await fetch(oauthClient.prepareAuthorization({ resource: DEMO_RESOURCE, scope: 'mcp' }).url, { redirect: 'manual' });
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
