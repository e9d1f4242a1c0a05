import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asUnsecuredJwt,
  bearerChallenge,
  type BrowserPage,
  type ClientMetadataHost,
  decodeJwt,
  generateTestSigningKey,
  mcpUrl,
  modernHeaders,
  modernMeta,
  OAuthBrowser,
  OAuthBrowserError,
  OAuthTestClient,
  obtainToken,
  postForm,
  type PreparedAuthorization,
  type RawResponse,
  responseMessage,
  sendRaw,
  signRs256,
  startClientMetadataHost,
  type TokenSet,
  withFlippedSignatureByte,
} from '@mcp-platform/shared-testing';
import { AdminApi, calculatorTool, uniqueTenant } from './admin-api';
import { adminUserOf, distributedMode, embeddedMode, type Platform, type PlatformMode, seededUrls } from './platforms';

/** Access tokens of this file's platforms live one minute (the least the authorization server allows), so one can expire here. */
const ACCESS_TOKEN_TTL_SECONDS = 60;
/** The broker's verifier tolerates this much clock skew past `exp`. */
const CLOCK_TOLERANCE_SECONDS = 5;
const CIMD_REDIRECT_URI = 'http://127.0.0.1:43119/callback';

/** A modern `tools/list` with the given headers: the smallest authorized MCP request (no session needed). */
async function listTools(url: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return sendRaw({
    url,
    headers: { ...modernHeaders('tools/list'), ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta() } }),
  });
}

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** The MCP endpoint took the token: 200 with a tools/list result. */
function expectAccepted(answer: RawResponse): void {
  expect(answer.status, answer.body.slice(0, 300)).toBe(200);
  expect(responseMessage(answer)?.result).toMatchObject({ tools: expect.any(Array) });
}

/** spec S-141: an invalid token is a 401 with the challenge and `error="invalid_token"`, and nothing is served. */
function expectInvalidToken(answer: RawResponse): void {
  expect(answer.status, answer.body.slice(0, 300)).toBe(401);
  expect(bearerChallenge(answer)?.error).toBe('invalid_token');
  expect(responseMessage(answer)?.result).toBeUndefined();
}

/** What a browser saw when it tried an authorization request: the redirect it ended on, or the page it stopped at. */
interface AuthorizationAttempt {
  callback?: URL;
  errorPage?: { status: number; body: string };
}

const modes: PlatformMode[] = [embeddedMode(), distributedMode(1)];

describe.each(modes)('authorization attacks, $name mode', (mode) => {
  let platform: Platform;
  let documents: ClientMetadataHost;
  let demoUrl: string;
  let client: OAuthTestClient;
  /** A token obtained at the start, used again after it expired (the file's last test, distributed mode). */
  let expiring: TokenSet;

  beforeAll(async () => {
    documents = await startClientMetadataHost({ client_name: 'e2e attack CIMD client', redirect_uris: [CIMD_REDIRECT_URI] }, { name: 'valid' });
    platform = await mode.boot({
      cimd: { allowedHosts: ['127.0.0.1'], caPem: documents.caPem, caFile: documents.caFile },
      accessTokenTtlSeconds: ACCESS_TOKEN_TTL_SECONDS,
    });
    demoUrl = seededUrls(platform.baseUrl).demo;
    client = await OAuthTestClient.register(platform.issuer, { clientName: 'e2e attacker-side client' });
    expiring = await obtainToken({ issuer: platform.issuer, resource: demoUrl, scope: 'mcp', user: platform.demoUser, client });
  });

  afterAll(async () => {
    await platform?.stop();
    await documents?.close();
  });

  /** A fresh token of the demo user (tokens live a minute here, so each test takes its own). */
  async function demoToken(resource = demoUrl, scope = 'mcp'): Promise<TokenSet> {
    return obtainToken({ issuer: platform.issuer, resource, scope, user: platform.demoUser, client });
  }

  /** The platform admin on the admin API, signed in afresh (tokens live a minute here). */
  async function admin(): Promise<AdminApi> {
    return AdminApi.signIn(platform, adminUserOf(platform));
  }

  /** Plays the demo user through an authorization request; an error page ends it without a callback. */
  async function attempt(url: URL, browser = new OAuthBrowser()): Promise<AuthorizationAttempt> {
    try {
      return { callback: await browser.authorize(url, { ...platform.demoUser, consent: 'approve' }) };
    } catch (error) {
      if (error instanceof OAuthBrowserError && error.response !== undefined)
        return { errorPage: { status: error.response.status, body: error.response.body } };
      throw error;
    }
  }

  /** A valid code with everything needed to redeem it. */
  async function codeFor(prepared?: PreparedAuthorization): Promise<{ code: string; verifier: string }> {
    const request = prepared ?? client.prepareAuthorization({ resource: demoUrl, scope: 'mcp' });
    const callback = await new OAuthBrowser().authorize(request.url, { ...platform.demoUser, consent: 'approve' });
    const outcome = client.readCallback(request, callback);
    if (outcome.code === undefined || outcome.verifier === undefined) throw new Error(`no code: ${callback.href}`);
    return { code: outcome.code, verifier: outcome.verifier };
  }

  describe('the MCP endpoint (resource server) refuses tokens it must not accept', () => {
    it('accepts a good token (the control for every refusal below)', async () => {
      expectAccepted(await listTools(demoUrl, bearer((await demoToken()).access_token)));
      expectAccepted(await listTools(demoUrl, bearer(expiring.access_token)));
    });

    it('refuses a token for another audience: the admin API', async () => {
      const adminToken = await obtainToken({ issuer: platform.issuer, resource: `${platform.authUrl}/admin/v1`, scope: 'admin', user: adminUserOf(platform) });
      expect([decodeJwt(adminToken.access_token).payload['aud']].flat()).toEqual([`${platform.authUrl}/admin/v1`]);
      expectInvalidToken(await listTools(demoUrl, bearer(adminToken.access_token)));
    });

    it('refuses a token for another virtual server of the same tenant (audience, RFC 8707)', async () => {
      await (await admin()).expect([200, 201], 'PUT', '/tenants/demo/virtual-servers/other', { title: 'Other demo server', tools: ['calculate'] });
      const otherUrl = mcpUrl(platform.baseUrl, 'demo', 'other');
      const otherToken = await demoToken(otherUrl);
      expectAccepted(await listTools(otherUrl, bearer(otherToken.access_token)));
      expectInvalidToken(await listTools(demoUrl, bearer(otherToken.access_token)));
    });

    it('refuses a token with one byte of its signature flipped', async () => {
      const token = (await demoToken()).access_token;
      expectInvalidToken(await listTools(demoUrl, bearer(withFlippedSignatureByte(token))));
    });

    it('refuses the same claims under alg "none" with no signature', async () => {
      const token = (await demoToken()).access_token;
      expectInvalidToken(await listTools(demoUrl, bearer(asUnsecuredJwt(token))));
      expectInvalidToken(await listTools(demoUrl, bearer(asUnsecuredJwt(token, { header: { alg: 'None' } }))));
    });

    it("refuses a token signed by a key not in the JWKS, under the authorization server's kid and under another kid", async () => {
      const { header, payload } = decodeJwt((await demoToken()).access_token);
      const { privateKey } = generateTestSigningKey();
      expectInvalidToken(await listTools(demoUrl, bearer(signRs256(header, payload, privateKey))));
      expectInvalidToken(await listTools(demoUrl, bearer(signRs256({ ...header, kid: 'e2e-unknown-key' }, payload, privateKey))));
      expectInvalidToken(await listTools(demoUrl, bearer(signRs256({ typ: 'at+jwt' }, payload, privateKey))));
    });

    it("refuses a token of tenant A at tenant B's server, and will not issue tenant A's user a token for it", async () => {
      const tenantB = uniqueTenant('e2e-b');
      const api = await admin();
      await api.expect(201, 'POST', '/tenants', { slug: tenantB, name: 'Tenant B (e2e)' });
      await api.expect([200, 201], 'PUT', `/tenants/${tenantB}/tools/calc`, calculatorTool());
      await api.expect([200, 201], 'PUT', `/tenants/${tenantB}/virtual-servers/main`, { title: 'B main', tools: ['calc'] });
      const urlB = mcpUrl(platform.baseUrl, tenantB, 'main');

      expectInvalidToken(await listTools(urlB, bearer((await demoToken()).access_token)));
      // A user obtains tokens only for the virtual servers of their own tenant.
      const request = client.prepareAuthorization({ resource: urlB, scope: 'mcp' });
      const tried = await attempt(request.url);
      const code = tried.callback?.searchParams.get('code');
      if (code !== null && code !== undefined) {
        const exchanged = await client.exchangeCode(code, { ...(request.verifier ? { verifier: request.verifier } : {}), resource: urlB });
        expect(exchanged.tokens, `the authorization server issued a token for ${urlB} to a user of tenant demo`).toBeUndefined();
      }
    });

    it('refuses an access token in the query string, even a valid one (400)', async () => {
      const token = (await demoToken()).access_token;
      const answer = await listTools(`${demoUrl}?access_token=${encodeURIComponent(token)}`);
      expect(answer.status).toBe(400);
      expect(responseMessage(answer)?.result).toBeUndefined();
      const both = await listTools(`${demoUrl}?access_token=${encodeURIComponent(token)}`, bearer(token));
      expect(both.status).toBe(400);
    });
  });

  describe('the authorization server refuses flawed authorization and token requests', () => {
    it('refuses an authorization request without PKCE', async () => {
      const tried = await attempt(client.prepareAuthorization({ resource: demoUrl, scope: 'mcp', pkce: 'none' }).url);
      expect(tried.callback?.searchParams.get('code') ?? null, tried.callback?.href).toBeNull();
    });

    it('refuses PKCE with the plain method (S256 only)', async () => {
      const tried = await attempt(client.prepareAuthorization({ resource: demoUrl, scope: 'mcp', pkce: 'plain' }).url);
      expect(tried.callback?.searchParams.get('code') ?? null, tried.callback?.href).toBeNull();
    });

    it('refuses a redirect URI that differs by one character, without redirecting to it', async () => {
      const registered = client.client.redirect_uris[0] ?? '';
      for (const altered of [registered.replace('callback', 'callbacc'), `${registered}x`, registered.replace('127.0.0.1:', '127.0.0.2:')]) {
        const tried = await attempt(client.prepareAuthorization({ resource: demoUrl, scope: 'mcp', redirectUri: altered }).url);
        // spec S-170/S-171: an unregistered redirect URI gets an error page, never a redirect.
        expect(tried.callback?.href, `redirected to ${altered}`).toBeUndefined();
        expect(tried.errorPage?.status).toBe(400);
      }
    });

    it('refuses to redeem a code with a redirect_uri that differs by one character', async () => {
      const { code, verifier } = await codeFor();
      const answer = await client.exchangeCode(code, { verifier, resource: demoUrl, redirectUri: `${client.client.redirect_uris[0] ?? ''}/` });
      expect(answer.status).toBe(400);
      expect(answer.body['error']).toBe('invalid_grant');
      expect(answer.tokens).toBeUndefined();
    });

    it('refuses to redeem a code with the wrong PKCE verifier, or none', async () => {
      const { code } = await codeFor();
      const wrong = await client.exchangeCode(code, { verifier: 'x'.repeat(43), resource: demoUrl });
      expect(wrong.status).toBe(400);
      expect(wrong.tokens).toBeUndefined();
      const other = await codeFor();
      const none = await client.exchangeCode(other.code, { resource: demoUrl });
      expect(none.status).toBe(400);
      expect(none.tokens).toBeUndefined();
    });

    it('refuses a replayed authorization code and revokes what its first redemption issued', async () => {
      const { code, verifier } = await codeFor();
      const first = await client.exchangeCode(code, { verifier, resource: demoUrl });
      expect(first.tokens?.refresh_token).toEqual(expect.any(String));
      const replay = await client.exchangeCode(code, { verifier, resource: demoUrl });
      expect(replay.status).toBe(400);
      expect(replay.body['error']).toBe('invalid_grant');
      // OAuth 2.1 §4.1.3: a code used twice revokes the tokens issued for it.
      const refresh = await client.refresh(first.tokens?.refresh_token ?? '', { resource: demoUrl });
      expect(refresh.status).toBe(400);
      expect(refresh.body['error']).toBe('invalid_grant');
    });

    it('revokes the whole refresh-token family when a rotated refresh token is used again', async () => {
      const { code, verifier } = await codeFor();
      const issued = await client.exchangeCode(code, { verifier, resource: demoUrl });
      const first = issued.tokens?.refresh_token ?? '';
      expect(first).not.toBe('');
      const rotated = await client.refresh(first, { resource: demoUrl });
      const second = rotated.tokens?.refresh_token ?? '';
      expect(rotated.status).toBe(200);
      expect(second).not.toBe('');
      expect(second).not.toBe(first);

      const reused = await client.refresh(first, { resource: demoUrl });
      expect(reused.status).toBe(400);
      expect(reused.body['error']).toBe('invalid_grant');
      // spec S-174: reuse detection revokes the grant, so the newest refresh token is dead too.
      const newest = await client.refresh(second, { resource: demoUrl });
      expect(newest.status).toBe(400);
      expect(newest.body['error']).toBe('invalid_grant');
    });

    it('serves sign-in and consent pages that cannot be framed or cached (S-150)', async () => {
      const browser = new OAuthBrowser();
      const signIn = await browser.navigate(client.prepareAuthorization({ resource: demoUrl, scope: 'mcp' }).url);
      expect(signIn.kind).toBe('page');
      const page = (signIn as { page: BrowserPage }).page;
      expect(page.forms.map((form) => form.id)).toContain('login');
      expectUnframeableAndUncached(page);
      const consent = await browser.submit(page, 'login', { fields: { username: platform.demoUser.username, password: platform.demoUser.password } });
      expect(consent.kind).toBe('page');
      const consentPage = (consent as { page: BrowserPage }).page;
      expect(consentPage.forms.map((form) => form.id)).toEqual(expect.arrayContaining(['consent', 'deny']));
      expectUnframeableAndUncached(consentPage);
      // spec S-150/S-165: the consent page names the client, where the answer goes, the server and the scopes.
      const text = consentPage.body.replace(/<[^>]+>/g, ' ');
      expect(text).toContain('e2e attacker-side client');
      expect(text).toContain(new URL(client.client.redirect_uris[0] ?? '').hostname);
      expect(text).toContain(demoUrl);
      expect(text).toMatch(/\bmcp\b/);
    });

    it('refuses the consent form with a forged or missing csrf (403) and issues no code for it', async () => {
      const browser = new OAuthBrowser();
      const request = client.prepareAuthorization({ resource: demoUrl, scope: 'mcp' });
      const signIn = await browser.navigate(request.url);
      if (signIn.kind !== 'page') throw new Error(`expected the sign-in page, left for ${signIn.url.href}`);
      const forgedLogin = await browser.submit(signIn.page, 'login', {
        fields: { csrf: 'forged', username: platform.demoUser.username, password: platform.demoUser.password },
        follow: false,
      });
      expect(forgedLogin.kind === 'page' ? forgedLogin.page.status : `redirect to ${forgedLogin.url.href}`).toBe(403);

      const consent = await browser.submit(signIn.page, 'login', { fields: { username: platform.demoUser.username, password: platform.demoUser.password } });
      if (consent.kind !== 'page') throw new Error(`expected the consent page, left for ${consent.url.href}`);
      const forged = await browser.submit(consent.page, 'consent', { fields: { csrf: 'forged' }, follow: false });
      expect(forged.kind === 'page' ? forged.page.status : `redirect to ${forged.url.href}`).toBe(403);
      const missing = await browser.submit(consent.page, 'consent', { omit: ['csrf'], follow: false });
      expect(missing.kind === 'page' ? missing.page.status : `redirect to ${missing.url.href}`).toBe(403);
      const empty = await browser.submit(consent.page, 'consent', { fields: { csrf: '' }, follow: false });
      expect(empty.kind === 'page' ? empty.page.status : `redirect to ${empty.url.href}`).toBe(403);

      // Nothing changed: no code reached the client, and the genuine form still decides.
      expect(browser.history.some((answer) => answer.location?.startsWith(request.redirectUri) === true && answer.location.includes('code='))).toBe(false);
      const genuine = await browser.submit(consent.page, 'consent');
      expect(genuine.kind).toBe('left-site');
      expect(genuine.kind === 'left-site' && client.readCallback(request, genuine.url).code).toEqual(expect.any(String));
    });
  });

  describe('Client ID Metadata Documents', () => {
    it('accepts a valid document (the control for the refusals below)', async () => {
      const cimdClient = await OAuthTestClient.forClientId(platform.issuer, documents.url, [CIMD_REDIRECT_URI]);
      const request = cimdClient.prepareAuthorization({ resource: demoUrl, scope: 'mcp' });
      const tried = await attempt(request.url);
      expect(tried.callback?.searchParams.get('code'), tried.callback?.href ?? tried.errorPage?.body.slice(0, 300)).toEqual(expect.any(String));
    });

    it('refuses an oversized metadata document (over 5 KiB)', async () => {
      const url = documents.serve('oversized', (self) => ({
        client_name: 'big',
        redirect_uris: [CIMD_REDIRECT_URI],
        logo_uri: `https://127.0.0.1/${'x'.repeat(6 * 1024)}`,
        client_id: self,
      }));
      const cimdClient = await OAuthTestClient.forClientId(platform.issuer, url, [CIMD_REDIRECT_URI]);
      const tried = await attempt(cimdClient.prepareAuthorization({ resource: demoUrl, scope: 'mcp' }).url);
      expect(tried.callback, tried.callback?.href).toBeUndefined();
      expect(tried.errorPage?.status).toBe(400);
      expect(documents.requests).toContain('/clients/oversized.json');
    });

    it('refuses a document whose client_id is not its own URL', async () => {
      const url = documents.serve('impostor', {
        client_id: 'https://impostor.example/client.json',
        client_name: 'impostor',
        redirect_uris: [CIMD_REDIRECT_URI],
      });
      const cimdClient = await OAuthTestClient.forClientId(platform.issuer, url, [CIMD_REDIRECT_URI]);
      const tried = await attempt(cimdClient.prepareAuthorization({ resource: demoUrl, scope: 'mcp' }).url);
      expect(tried.callback, tried.callback?.href).toBeUndefined();
    });
  });

  // The wait is a minute (the shortest lifetime the authorization server allows), so it runs in the distributed
  // mode only: the broker's verifier is the same code in both modes, and its expiry rule (with the clock
  // tolerance) is unit-tested on a fixed clock in libs/shared/auth.
  describe.runIf(mode.name === 'distributed')('expiry', () => {
    it(
      'refuses a token once it has expired (the token of the first test, unchanged)',
      async () => {
        const { exp, iat } = decodeJwt(expiring.access_token).payload as { exp: number; iat: number };
        expect(exp - iat, 'the platform did not apply the access token lifetime it was booted with').toBeLessThanOrEqual(ACCESS_TOKEN_TTL_SECONDS);
        const expiredAt = (exp + CLOCK_TOLERANCE_SECONDS + 1) * 1000;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiredAt - Date.now())));
        expectInvalidToken(await listTools(demoUrl, bearer(expiring.access_token)));
      },
      (ACCESS_TOKEN_TTL_SECONDS + CLOCK_TOLERANCE_SECONDS + 30) * 1000,
    );
  });
});

describe.each(modes)('Client ID Metadata Documents on a private address, $name mode (no allowance)', (mode) => {
  let platform: Platform;
  let documents: ClientMetadataHost;

  beforeAll(async () => {
    documents = await startClientMetadataHost({ client_name: 'e2e private CIMD client', redirect_uris: [CIMD_REDIRECT_URI] });
    // The certificate is trusted but 127.0.0.1 is not allowed: only the SSRF guard can refuse the fetch.
    platform = await mode.boot({ cimd: { allowedHosts: [], caPem: documents.caPem, caFile: documents.caFile } });
  });

  afterAll(async () => {
    await platform?.stop();
    await documents?.close();
  });

  it('refuses a client_id URL on a loopback address without fetching it (S-164)', async () => {
    const demoUrl = seededUrls(platform.baseUrl).demo;
    for (const clientId of [
      documents.url,
      'https://169.254.169.254/clients/metadata.json',
      'https://[::1]/clients/e2e.json',
      'https://10.0.0.1/clients/e2e.json',
    ]) {
      const cimdClient = await OAuthTestClient.forClientId(platform.issuer, clientId, [CIMD_REDIRECT_URI]);
      const url = cimdClient.prepareAuthorization({ resource: demoUrl, scope: 'mcp' }).url;
      let callback: URL | undefined;
      try {
        callback = await new OAuthBrowser().authorize(url, { ...platform.demoUser, consent: 'approve' });
      } catch (error) {
        if (!(error instanceof OAuthBrowserError)) throw error;
        expect(error.response?.status, error.message).toBe(400);
      }
      expect(callback?.href, `${clientId} was accepted`).toBeUndefined();
    }
    expect(documents.requests).toEqual([]);
  });

  it('tells whoever names such a client id an error id, never how the platform resolved it (issue 13 item 5)', async () => {
    const byName = new URL(documents.url);
    byName.hostname = 'localhost';
    const cimdClient = await OAuthTestClient.forClientId(platform.issuer, byName.href, [CIMD_REDIRECT_URI]);
    const page = await fetch(cimdClient.prepareAuthorization({ resource: seededUrls(platform.baseUrl).demo, scope: 'mcp' }).url, { redirect: 'manual' });
    const html = await page.text();
    expect(page.status).toBe(400);
    expect(html).toMatch(/the document could not be fetched \(error id [0-9a-f-]{36}\)/);
    const token = await postForm(`${platform.issuer}/token`, {
      grant_type: 'authorization_code',
      code: 'never-issued',
      code_verifier: 'v'.repeat(43),
      redirect_uri: CIMD_REDIRECT_URI,
      client_id: byName.href,
    });
    expect(token.body).toMatchObject({
      error: 'invalid_client',
      error_description: expect.stringMatching(/the document could not be fetched \(error id [0-9a-f-]{36}\)/),
    });
    for (const answer of [html, JSON.stringify(token.body)]) expect(answer).not.toMatch(/127\.0\.0\.1|::1|resolves to|public address/);
    expect(documents.requests).toEqual([]);
  });
});

function expectUnframeableAndUncached(page: BrowserPage): void {
  expect(page.headers.get('x-frame-options')?.toUpperCase()).toBe('DENY');
  expect(page.headers.get('content-security-policy') ?? '').toMatch(/frame-ancestors\s+'none'/);
  expect(page.headers.get('cache-control') ?? '').toMatch(/no-store/);
}
