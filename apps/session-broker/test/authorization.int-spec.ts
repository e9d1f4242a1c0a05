import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizationServer } from '@mcp-platform/protocol-contracts';
import { inProcessMessaging, MessageBus, type MessagingOptions } from '@mcp-platform/shared-messaging';
import { isolatedNatsMessaging } from '@mcp-platform/shared-testing';
import { bootBroker, type BootedBroker, ExecutorLog, HASH_TEXT_SCOPES } from './fake-tool-executor';
import { eventually, modernHeaders, modernParams, openStream, post } from './http-helpers';
import { TEST_ISSUER, TEST_PUBLIC_URL, testTenantId } from './test-issuer';

const run = `sa${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

const transports: Array<[string, () => MessagingOptions]> = [
  ['in-process', () => inProcessMessaging()],
  ['nats', () => isolatedNatsMessaging(`session-broker-auth-test-${run}`, run)],
];

const PRIVATE_RESOURCE = `${TEST_PUBLIC_URL}/demo/private/mcp`;
const PRIVATE_METADATA = `${TEST_PUBLIC_URL}/.well-known/oauth-protected-resource/demo/private/mcp`;
const LEGACY = '2025-11-25';

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
const initializeBody = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'auth-test', version: '1' } },
};

describe.each(transports)('SessionBroker as an OAuth resource server over %s', (_transport, messaging) => {
  let broker: BootedBroker;
  const log = new ExecutorLog();

  beforeAll(async () => {
    broker = await bootBroker(messaging(), { executor: log });
  });
  afterAll(async () => {
    await broker.close();
  });

  /** A legacy session on `url`, opened with `token`; returns its id. */
  async function openSession(url: string, token?: string): Promise<string> {
    const headers = token === undefined ? {} : bearer(token);
    const answer = await post(url, initializeBody, headers);
    const sessionId = answer.headers.get('mcp-session-id');
    if (answer.status !== 200 || !sessionId) throw new Error(`initialize failed: ${answer.status} ${answer.text}`);
    await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY });
    return sessionId;
  }

  describe('challenges', () => {
    it('answers a request without a token with 401, the metadata URL and the mcp scope, and a JSON-RPC error without id', async () => {
      const answer = await post(broker.privateUrl, initializeBody);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${PRIVATE_METADATA}", scope="mcp"`);
      expect(answer.messages[0]).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Unauthorized: this MCP server requires an access token' } });
    });

    it('refuses GET and DELETE without a token before looking at the session', async () => {
      for (const method of ['GET', 'DELETE']) {
        const response = await fetch(broker.privateUrl, { method, headers: { accept: 'text/event-stream', 'mcp-session-id': 'A'.repeat(32) } });
        expect(response.status, method).toBe(401);
        expect(response.headers.get('www-authenticate'), method).toMatch(/^Bearer resource_metadata=/);
      }
    });

    it('serves the public server without a token, as the anonymous principal', async () => {
      const sessionId = await openSession(broker.mcpUrl);
      const answer = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': sessionId });
      expect(answer.status).toBe(200);
      expect(log.principals.at(-1)).toEqual({ subject: 'anonymous', tenant: 'demo', scopes: [], anonymous: true });
    });

    it('refuses an access token in the query string with 400 invalid_request (S-138)', async () => {
      const token = await broker.issuer.mint();
      const answer = await post(`${broker.privateUrl}?access_token=${token}`, initializeBody, bearer(token));
      expect(answer.status).toBe(400);
      expect(answer.headers.get('www-authenticate')).toMatch(/error="invalid_request"/);
      expect(answer.messages[0]).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    });

    it('refuses an Authorization header that is not Bearer with 400 invalid_request', async () => {
      const answer = await post(broker.privateUrl, initializeBody, { authorization: 'Basic dXNlcjpwYXNz' });
      expect(answer.status).toBe(400);
      expect(answer.headers.get('www-authenticate')).toMatch(/error="invalid_request"/);
    });

    it('refuses a token issued for another server with 401 invalid_token (S-140)', async () => {
      const answer = await post(broker.privateUrl, initializeBody, bearer(await broker.issuer.mint({ server: 'default' })));
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${PRIVATE_METADATA}", scope="mcp", error="invalid_token", error_description="the token was not issued for this resource"`,
      );
      expect(answer.messages[0]).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Unauthorized: the token was not issued for this resource' } });
    });

    it('refuses a token whose tenant is not the server’s with 401 invalid_token', async () => {
      const token = await broker.issuer.mint({ claims: { tenant: 'acme' } });
      const answer = await post(broker.privateUrl, initializeBody, bearer(token));
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/error="invalid_token", error_description="the token was not issued for this tenant"/);
    });

    it('refuses an expired token and a JWT that is not an access token with 401 invalid_token (S-141)', async () => {
      const expired = await broker.issuer.mint({ claims: { exp: Math.floor(Date.now() / 1_000) - 60 } });
      const idToken = await broker.issuer.mint({ typ: 'JWT' });
      for (const token of [expired, idToken]) {
        const answer = await post(broker.privateUrl, initializeBody, bearer(token));
        expect(answer.status).toBe(401);
        expect(answer.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
      }
    });

    it('answers a token without the mcp scope with 403 insufficient_scope', async () => {
      const answer = await post(broker.privateUrl, initializeBody, bearer(await broker.issuer.mint({ claims: { scope: 'demo:crypto' } })));
      expect(answer.status).toBe(403);
      expect(answer.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${PRIVATE_METADATA}", scope="mcp", error="insufficient_scope", error_description="this MCP server needs the mcp scope"`,
      );
    });
  });

  describe('Protected Resource Metadata', () => {
    it('serves the document of a virtual server at the path-suffixed well-known URL (RFC 9728)', async () => {
      const response = await fetch(`${broker.url}/.well-known/oauth-protected-resource/demo/private/mcp`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.headers.get('cache-control')).toBe('public, max-age=300');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      await expect(response.json()).resolves.toEqual({
        resource: PRIVATE_RESOURCE,
        authorization_servers: [TEST_ISSUER],
        scopes_supported: ['mcp'],
        bearer_methods_supported: ['header'],
        resource_name: 'Private demo',
      });
    });

    it('answers 404 for a server that does not exist', async () => {
      const response = await fetch(`${broker.url}/.well-known/oauth-protected-resource/demo/missing/mcp`);
      expect(response.status).toBe(404);
    });

    it('answers a CORS preflight, so browser-based clients can read it', async () => {
      const response = await fetch(`${broker.url}/.well-known/oauth-protected-resource/demo/private/mcp`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'mcp-protocol-version' },
      });
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-methods')).toMatch(/GET/);
      expect(response.headers.get('access-control-allow-headers')).toMatch(/mcp-protocol-version/);
    });
  });

  describe('with a valid token', () => {
    it('serves the legacy era and hands the executor the principal, never the token', async () => {
      const token = await broker.issuer.mint();
      const sessionId = await openSession(broker.privateUrl, token);
      const answer = await post(broker.privateUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...bearer(token), 'mcp-session-id': sessionId });
      expect(answer.status).toBe(200);
      expect(answer.messages[0]).toMatchObject({ id: 1, result: { tools: expect.any(Array) } });
      expect(log.principals.at(-1)).toEqual({ subject: 'user-1', tenant: 'demo', clientId: 'client-1', scopes: ['mcp'], anonymous: false });
    });

    it('serves the modern era per request', async () => {
      const token = await broker.issuer.mint({ claims: { sub: 'user-modern' } });
      const answer = await post(
        broker.privateUrl,
        { jsonrpc: '2.0', id: 2, method: 'tools/list', params: modernParams() },
        { ...modernHeaders('tools/list'), ...bearer(token) },
      );
      expect(answer.status).toBe(200);
      expect(log.principals.at(-1)).toMatchObject({ subject: 'user-modern', anonymous: false });
    });

    it('ends a subscriptions/listen stream with its result when the token it was opened with expires', async () => {
      const token = await broker.issuer.mint({ claims: { exp: Math.floor(Date.now() / 1_000) + 2 } });
      const body = { jsonrpc: '2.0', id: 'until-expiry', method: 'subscriptions/listen', params: modernParams({ notifications: { toolsListChanged: true } }) };
      const listen = await openStream(broker.privateUrl, { method: 'POST', headers: { ...modernHeaders('subscriptions/listen'), ...bearer(token) }, body });
      expect(listen.status).toBe(200);
      await listen.ended;
      expect(listen.messages().map((message) => message.method ?? message.result?.['resultType'])).toEqual([
        'notifications/subscriptions/acknowledged',
        'complete',
      ]);
    });

    it('closes a legacy GET stream when the token it was opened with expires', async () => {
      const sessionId = await openSession(broker.privateUrl, await broker.issuer.mint());
      const token = await broker.issuer.mint({ claims: { exp: Math.floor(Date.now() / 1_000) + 2 } });
      const stream = await openStream(broker.privateUrl, {
        method: 'GET',
        headers: { ...bearer(token), 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY },
      });
      expect(stream.status).toBe(200);
      await stream.ended;
      expect(stream.messages()).toEqual([]);
    });

    it('works with the official SDK client sending the token', async () => {
      const client = new LegacyClient({ name: 'auth-sdk-test', version: '1.0.0' });
      const token = await broker.issuer.mint();
      await client.connect(new LegacyTransport(new URL(broker.privateUrl), { requestInit: { headers: bearer(token) } }));
      try {
        await expect(client.callTool({ name: 'echo', arguments: { text: 'authorized' } })).resolves.toMatchObject({ content: [{ text: 'authorized' }] });
      } finally {
        await client.close();
      }
    });
  });

  describe('step-up (insufficient scope from the executor)', () => {
    const hashChallenge = `Bearer resource_metadata="${PRIVATE_METADATA}", scope="mcp demo:crypto", error="insufficient_scope", error_description="this operation needs the scopes: mcp demo:crypto"`;

    it('answers 403 with a challenge naming every scope the call needs, and a JSON-RPC error with the id (legacy)', async () => {
      const token = await broker.issuer.mint();
      const sessionId = await openSession(broker.privateUrl, token);
      const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'hash_text', arguments: {} } };
      const refused = await post(broker.privateUrl, call, { ...bearer(token), 'mcp-session-id': sessionId });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('www-authenticate')).toBe(hashChallenge);
      expect(refused.messages[0]).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32600, message: 'Forbidden: insufficient scope; this operation needs: mcp demo:crypto', data: { scopes: HASH_TEXT_SCOPES } },
      });
      // After stepping up, the same subject and client keep the session and the call goes through.
      const stepped = await broker.issuer.mint({ claims: { scope: 'mcp demo:crypto' } });
      const answer = await post(broker.privateUrl, { ...call, id: 8 }, { ...bearer(stepped), 'mcp-session-id': sessionId });
      expect(answer.status).toBe(200);
      expect(answer.messages[0]).toMatchObject({ id: 8, result: { content: [{ text: 'hashed' }] } });
    });

    it('answers 403 with the same challenge in the modern era', async () => {
      const token = await broker.issuer.mint();
      const body = { jsonrpc: '2.0', id: 'm1', method: 'tools/call', params: modernParams({ name: 'hash_text', arguments: {} }) };
      const refused = await post(broker.privateUrl, body, { ...modernHeaders('tools/call', 'hash_text'), ...bearer(token) });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('www-authenticate')).toBe(hashChallenge);
      expect(refused.messages[0]).toMatchObject({ id: 'm1', error: { code: -32600, data: { scopes: HASH_TEXT_SCOPES } } });
    });
  });

  describe('legacy sessions bound to their caller (S-97)', () => {
    it('answers a session presented by another subject with 404, and keeps serving its owner with a new token', async () => {
      const sessionId = await openSession(broker.privateUrl, await broker.issuer.mint());
      const ping = { jsonrpc: '2.0', id: 3, method: 'ping' };
      const intruder = await post(broker.privateUrl, ping, { ...bearer(await broker.issuer.mint({ claims: { sub: 'user-2' } })), 'mcp-session-id': sessionId });
      expect(intruder.status).toBe(404);
      expect(intruder.messages[0]).toMatchObject({ id: 3, error: { code: -32600, message: 'Session not found' } });
      const otherClient = await post(broker.privateUrl, ping, {
        ...bearer(await broker.issuer.mint({ claims: { client_id: 'client-2' } })),
        'mcp-session-id': sessionId,
      });
      expect(otherClient.status).toBe(404);
      // A refreshed token (new jti, same subject and client) keeps working.
      const owner = await post(broker.privateUrl, ping, { ...bearer(await broker.issuer.mint()), 'mcp-session-id': sessionId });
      expect(owner.status).toBe(200);
    });

    it('does not let a token holder take over an anonymous session of a public server', async () => {
      const sessionId = await openSession(broker.mcpUrl);
      const token = await broker.issuer.mint({ server: 'default' });
      const answer = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 4, method: 'ping' }, { ...bearer(token), 'mcp-session-id': sessionId });
      expect(answer.status).toBe(404);
      // Not even with a token whose subject is literally "anonymous" and that names no client.
      const lookalike = await broker.issuer.mint({ server: 'default', claims: { sub: 'anonymous', client_id: undefined } });
      const disguised = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 5, method: 'ping' }, { ...bearer(lookalike), 'mcp-session-id': sessionId });
      expect(disguised.status).toBe(404);
      // Its anonymous owner still gets in.
      await expect(post(broker.mcpUrl, { jsonrpc: '2.0', id: 6, method: 'ping' }, { 'mcp-session-id': sessionId })).resolves.toMatchObject({ status: 200 });
    });
  });

  describe('signing key rotation', () => {
    it('fetches the key set again for a token signed by a new key, and at once after signingKeysRotated', async () => {
      const ping = { jsonrpc: '2.0', id: 5, method: 'server/discover', params: modernParams() };
      const headers = modernHeaders('server/discover');
      // Keys are cached by now (earlier requests).
      await expect(post(broker.privateUrl, ping, { ...headers, ...bearer(await broker.issuer.mint()) })).resolves.toMatchObject({ status: 200 });
      const fetchesBefore = broker.issuer.fetches;

      await broker.issuer.rotate();
      const rotated = await post(broker.privateUrl, ping, { ...headers, ...bearer(await broker.issuer.mint()) });
      expect(rotated.status).toBe(200);
      expect(broker.issuer.fetches).toBe(fetchesBefore + 1);

      // A second unknown key right away: refetches are rate-limited, so it is refused ...
      await broker.issuer.rotate();
      const token = await broker.issuer.mint();
      const limited = await post(broker.privateUrl, ping, { ...headers, ...bearer(token) });
      expect(limited.status).toBe(401);
      expect(limited.headers.get('www-authenticate')).toMatch(/error_description="the token is signed with an unknown key"/);
      // ... until the authorization server announces the rotation.
      broker.app.get(MessageBus).emit(authorizationServer.signingKeysRotated, { kids: ['any'] });
      await eventually(async () => ((await post(broker.privateUrl, ping, { ...headers, ...bearer(token) })).status === 200 ? true : undefined));
    });
  });
  describe('revoked tokens and disabled tenants (issue 13)', () => {
    const ping = { jsonrpc: '2.0', id: 9, method: 'server/discover', params: modernParams() };
    const discover = (url: string, token?: string) => post(url, ping, { ...modernHeaders('server/discover'), ...(token === undefined ? {} : bearer(token)) });
    const seconds = (ms: number) => Math.floor(ms / 1_000);

    it('refuses a token whose tenant id or subject was revoked after it was issued, once accessRevoked arrives; newer tokens pass', async () => {
      // A tenant id of its own, so the revocation touches no other test's tokens.
      const tenantId = testTenantId('revoked-in-this-test');
      const old = await broker.issuer.mint({ claims: { tenant_id: tenantId, iat: seconds(Date.now()) - 30 } });
      const oldOfUser = await broker.issuer.mint({ claims: { sub: 'user-revoked', iat: seconds(Date.now()) - 30 } });
      expect((await discover(broker.privateUrl, old)).status).toBe(200);
      const revokedAt = Date.now() - 10_000;
      broker.app.get(MessageBus).emit(authorizationServer.accessRevoked, { kind: 'tenant', id: tenantId, revokedAt, tenant: 'demo' });
      broker.app.get(MessageBus).emit(authorizationServer.accessRevoked, { kind: 'subject', id: 'user-revoked', revokedAt });
      await eventually(async () => ((await discover(broker.privateUrl, old)).status === 401 ? true : undefined));
      const refused = await discover(broker.privateUrl, oldOfUser);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/error="invalid_token", error_description="the token was revoked/);
      const newer = await broker.issuer.mint({ claims: { tenant_id: tenantId, iat: seconds(revokedAt) + 1 } });
      expect((await discover(broker.privateUrl, newer)).status).toBe(200);
    });

    it('refuses a token without a tenant id: it cannot be told from a token of a deleted tenant of the same slug', async () => {
      const answer = await discover(broker.privateUrl, await broker.issuer.mint({ claims: { tenant_id: undefined } }));
      expect(answer.status).toBe(401);
    });

    it('refuses every caller of a tenant disabled by tenantStateChanged at once, cuts its open streams, and serves it again once enabled', async () => {
      const sessionId = await openSession(broker.mcpUrl);
      const getStream = await openStream(broker.mcpUrl, { method: 'GET', headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY } });
      const body = { jsonrpc: '2.0', id: 'cut', method: 'subscriptions/listen', params: modernParams({ notifications: { toolsListChanged: true } }) };
      const listen = await openStream(broker.privateUrl, {
        method: 'POST',
        headers: { ...modernHeaders('subscriptions/listen'), ...bearer(await broker.issuer.mint()) },
        body,
      });
      expect([getStream.status, listen.status]).toEqual([200, 200]);

      const event = { tenant: 'demo', tenantId: testTenantId('demo') };
      broker.app.get(MessageBus).emit(authorizationServer.tenantStateChanged, { ...event, state: 'disabled' });
      await eventually(async () => ((await discover(broker.mcpUrl)).status === 403 ? true : undefined));
      const refused = await discover(broker.privateUrl, await broker.issuer.mint({ claims: { iat: seconds(Date.now()) + 1 } }));
      expect(refused.status).toBe(403);
      expect(refused.messages[0]).toMatchObject({ error: { message: 'Forbidden: the tenant of this MCP server is disabled' } });
      await Promise.all([getStream.ended, listen.ended]);
      // Its legacy session ended with it.
      broker.app.get(MessageBus).emit(authorizationServer.tenantStateChanged, { ...event, state: 'enabled' });
      await eventually(async () => ((await discover(broker.mcpUrl)).status === 200 ? true : undefined));
      expect(
        (await post(broker.mcpUrl, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY })).status,
      ).toBe(404);
    });
  });
});
