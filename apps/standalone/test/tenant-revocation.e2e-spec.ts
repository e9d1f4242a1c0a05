import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  mcpUrl,
  modernHeaders,
  modernMeta,
  obtainToken,
  openLegacySession,
  postForm,
  type RawResponse,
  responseMessage,
  sendRaw,
  waitUntil,
} from '@mcp-platform/shared-testing';
import { AdminApi, calculatorTool, uniqueTenant } from './admin-api';
import { adminUserOf, distributedMode, embeddedMode, type Platform, type PlatformMode } from './platforms';

/** Two broker replicas in distributed mode: every refusal must hold on each, whichever took the request. */
const modes: PlatformMode[] = [embeddedMode(), distributedMode(2)];

/** How long a change may take to reach every replica ("within seconds"). */
const PROPAGATION_MS = 10_000;

/** A modern `tools/list`: the smallest MCP request, with the token or without one. */
function listTools(url: string, token?: string): Promise<RawResponse> {
  return sendRaw({
    url,
    headers: { ...modernHeaders('tools/list'), ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta() } }),
  });
}

/** Waits until `check` of a fresh `tools/list` on every URL holds (the statuses seen go in the failure message). */
async function untilEveryReplica(
  urls: readonly string[],
  token: string | undefined,
  check: (answer: RawResponse) => boolean,
  description: string,
): Promise<void> {
  await waitUntil(
    async () => {
      const answers = await Promise.all(urls.map((url) => listTools(url, token)));
      if (answers.every(check)) return true;
      // The last answers go into the timeout's message.
      throw new Error(answers.map((answer) => `${answer.status} ${answer.body.slice(0, 200)}`).join(' | '));
    },
    { timeoutMs: PROPAGATION_MS, intervalMs: 100, description },
  );
}

const accepted = (answer: RawResponse) => answer.status === 200 && responseMessage(answer)?.result !== undefined;
const refused = (answer: RawResponse) => (answer.status === 401 || answer.status === 403) && responseMessage(answer)?.result === undefined;

/** An open streaming response (SSE) and a promise that settles once the server ended or cut it. */
interface OpenStream {
  status: number;
  ended: Promise<void>;
  abort(): void;
}

async function openStream(url: string, init: RequestInit): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(url, { ...init, signal: controller.signal });
  const reader = response.body?.getReader();
  const ended = (async () => {
    try {
      while (reader && !(await reader.read()).done);
    } catch {
      // A connection cut by the server ends the stream too.
    }
  })();
  return { status: response.status, ended, abort: () => controller.abort() };
}

/** Resolves `true` once `stream` ended, `false` if it is still open after `ms`. */
function endsWithin(stream: OpenStream, ms: number): Promise<boolean> {
  return Promise.race([stream.ended.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);
}

describe.each(modes)('disabling and deleting tenants and users stops every way in, $name mode', (mode) => {
  let platform: Platform;
  let brokers: readonly string[];
  let admin: AdminApi;

  beforeAll(async () => {
    platform = await mode.boot();
    brokers = platform.mode === 'distributed' ? platform.brokerUrls : [platform.baseUrl];
    admin = await AdminApi.signIn(platform, adminUserOf(platform));
  });

  afterAll(async () => {
    await platform?.stop();
  });

  /** A tenant with the protected server `main` and the public server `open` (both with a calculator). */
  async function tenantWithServers(slug: string): Promise<void> {
    await admin.expect(201, 'POST', '/tenants', { slug, name: `Tenant ${slug} (e2e)` });
    await admin.expect([200, 201], 'PUT', `/tenants/${slug}/tools/calc`, calculatorTool());
    await admin.expect([200, 201], 'PUT', `/tenants/${slug}/virtual-servers/main`, { title: 'Main', tools: ['calc'] });
    await admin.expect([200, 201], 'PUT', `/tenants/${slug}/virtual-servers/open`, { title: 'Open', public: true, tools: ['calc'] });
  }

  /** A confidential machine client of the tenant, and a way to ask for its client_credentials tokens. */
  async function machineClient(slug: string): Promise<(resource: string) => ReturnType<typeof postForm>> {
    const created = (
      await admin.expect(201, 'POST', `/tenants/${slug}/clients`, {
        client_name: 'e2e robot',
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'mcp',
      })
    ).body as { client_id: string; client_secret: string };
    return (resource) =>
      postForm(
        `${platform.issuer}/token`,
        { grant_type: 'client_credentials', resource, scope: 'mcp' },
        { clientSecretBasic: { id: created.client_id, secret: created.client_secret } },
      );
  }

  async function tokenOf(request: ReturnType<typeof postForm>): Promise<string> {
    const answer = await request;
    if (answer.status !== 200 || typeof answer.body['access_token'] !== 'string') throw new Error(`no token: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body['access_token'];
  }

  it('refuses a disabled tenant everything on every replica within seconds, and a re-enabled one lets new tokens in', async () => {
    const slug = uniqueTenant('e2e-off');
    await tenantWithServers(slug);
    const mainUrls = brokers.map((broker) => mcpUrl(broker, slug, 'main'));
    const openUrls = brokers.map((broker) => mcpUrl(broker, slug, 'open'));
    const robot = await machineClient(slug);
    const token = await tokenOf(robot(mcpUrl(platform.baseUrl, slug, 'main')));
    await admin.expect(201, 'POST', `/tenants/${slug}/users`, { username: `${slug}-admin`, password: 'a long enough password', roles: ['tenant-admin'] });
    const tenantAdmin = await AdminApi.signIn(platform, { username: `${slug}-admin`, password: 'a long enough password' });

    await untilEveryReplica(mainUrls, token, accepted, `the token of ${slug} accepted on every replica`);
    await untilEveryReplica(openUrls, undefined, accepted, `anonymous callers of ${slug} accepted on every replica`);
    expect((await tenantAdmin.request('GET', `/tenants/${slug}/users`)).status).toBe(200);

    // Open streams of the tenant, on the last replica: a legacy GET stream (anonymous, public server) and a subscriptions/listen (token).
    const lastOpen = openUrls[openUrls.length - 1] ?? '';
    const session = await openLegacySession(lastOpen);
    const getStream = await openStream(lastOpen, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': session.sessionId, 'mcp-protocol-version': session.protocolVersion },
    });
    const lastMain = mainUrls[mainUrls.length - 1] ?? '';
    let disabledAt = 0;
    const listen = await openStream(lastMain, {
      method: 'POST',
      headers: { ...modernHeaders('subscriptions/listen'), authorization: `Bearer ${token}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'subscriptions/listen',
        params: { _meta: modernMeta(), notifications: { toolsListChanged: true } },
      }),
    });
    try {
      expect([getStream.status, listen.status]).toEqual([200, 200]);
      expect(await endsWithin(getStream, 500)).toBe(false);

      await admin.expect(200, 'PATCH', `/tenants/${slug}`, { disabled: true });
      disabledAt = Date.now();

      await untilEveryReplica(mainUrls, token, refused, `the token of disabled ${slug} refused on every replica`);
      await untilEveryReplica(openUrls, undefined, refused, `anonymous callers of disabled ${slug} refused on every replica`);
      expect(await endsWithin(getStream, PROPAGATION_MS), 'the legacy GET stream is still open').toBe(true);
      expect(await endsWithin(listen, PROPAGATION_MS), 'the listen stream is still open').toBe(true);
      // Its legacy session ended with it.
      expect(
        (await sendRaw({ url: lastOpen, headers: { ...session.headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) })).status,
      ).not.toBe(200);
      const noToken = await robot(mcpUrl(platform.baseUrl, slug, 'main'));
      expect(noToken.status).toBe(400);
      expect(noToken.body).toMatchObject({ error: 'invalid_target' });
      expect((await tenantAdmin.request('GET', `/tenants/${slug}/users`)).status).toBe(401);
    } finally {
      getStream.abort();
      listen.abort();
    }

    await admin.expect(200, 'PATCH', `/tenants/${slug}`, { disabled: false });
    // `iat` has whole seconds, so a token issued in the second of the revocation counts as issued before it
    // (a client refused for that asks again); this test asks for its new token after that second.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.ceil(disabledAt / 1000) * 1000 - Date.now() + 10)));
    const fresh = await tokenOf(robot(mcpUrl(platform.baseUrl, slug, 'main')));
    await untilEveryReplica(mainUrls, fresh, accepted, `a new token of re-enabled ${slug} accepted on every replica`);
    await untilEveryReplica(openUrls, undefined, accepted, `anonymous callers of re-enabled ${slug} accepted on every replica`);
    // A token issued before the tenant was disabled stays revoked.
    for (const url of mainUrls) expect((await listTools(url, token)).status, url).toBe(401);
  });

  it("refuses a deleted tenant's token on a new tenant created with the same slug", async () => {
    const slug = uniqueTenant('e2e-gone');
    await tenantWithServers(slug);
    const mainUrls = brokers.map((broker) => mcpUrl(broker, slug, 'main'));
    const old = await tokenOf((await machineClient(slug))(mcpUrl(platform.baseUrl, slug, 'main')));
    for (const url of mainUrls) expect(accepted(await listTools(url, old)), url).toBe(true);

    await admin.expect(204, 'DELETE', `/tenants/${slug}`);
    await tenantWithServers(slug);
    const current = await tokenOf((await machineClient(slug))(mcpUrl(platform.baseUrl, slug, 'main')));
    await untilEveryReplica(mainUrls, current, accepted, `a token of the new ${slug} accepted on every replica`);
    for (const url of mainUrls) {
      const answer = await listTools(url, old);
      expect(answer.status, url).toBe(401);
      expect(answer.headers['www-authenticate']).toMatch(/error="invalid_token"/);
    }
  });

  it('leaves a new tenant created with the same slug nothing of a deleted one: no resource, template, prompt or task', async () => {
    const slug = uniqueTenant('e2e-heir');
    await tenantWithServers(slug);
    await admin.expect([200, 201], 'PUT', `/tenants/${slug}/tools/calc`, { ...calculatorTool(), execution: { taskSupport: 'optional' } });
    await admin.expect([200, 201], 'PUT', `/tenants/${slug}/resources/by-uri?uri=${encodeURIComponent('notes://secret')}`, {
      name: 'secret',
      text: 'the old tenant’s secret',
    });
    await admin.expect([200, 201], 'PUT', `/tenants/${slug}/resource-templates/items`, { uriTemplate: 'items://{id}', text: 'item {id}' });
    await admin.expect([200, 201], 'PUT', `/tenants/${slug}/prompts/greet`, {
      description: 'Greets',
      messages: [{ role: 'user', content: { type: 'text', text: 'Hello' } }],
    });
    const openUrl = mcpUrl(platform.baseUrl, slug, 'open');
    const session = await openLegacySession(openUrl);
    const created = await sendRaw({
      url: openUrl,
      headers: session.headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'calc', arguments: { expression: '6*7' }, task: { ttl: 60_000 } } }),
    });
    expect(responseMessage(created)?.result, created.body.slice(0, 300)).toMatchObject({ task: { status: expect.any(String) } });
    const tasksOf = async () => ((await admin.expect(200, 'GET', `/tenants/${slug}/tasks`)).body as { tasks: unknown[] }).tasks;
    expect(await tasksOf()).toHaveLength(1);

    await admin.expect(204, 'DELETE', `/tenants/${slug}`);
    await tenantWithServers(slug);

    expect((await admin.expect(200, 'GET', `/tenants/${slug}/resources`)).body).toMatchObject({ resources: [] });
    expect((await admin.expect(200, 'GET', `/tenants/${slug}/resource-templates`)).body).toMatchObject({ resourceTemplates: [] });
    expect((await admin.expect(200, 'GET', `/tenants/${slug}/prompts`)).body).toMatchObject({ prompts: [] });
    expect(await tasksOf()).toEqual([]);
    // Its MCP callers (anonymous, on the new public server) read nothing of the old tenant either.
    const read = await sendRaw({
      url: openUrl,
      headers: modernHeaders('resources/read', 'notes://secret'),
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'notes://secret', _meta: modernMeta() } }),
    });
    expect(read.body).not.toContain('the old tenant');
    expect(responseMessage(read)?.error).toBeDefined();
  });

  it("refuses a disabled user's and a deleted user's access token on every replica within seconds", async () => {
    const slug = uniqueTenant('e2e-users');
    await tenantWithServers(slug);
    const resource = mcpUrl(platform.baseUrl, slug, 'main');
    const mainUrls = brokers.map((broker) => mcpUrl(broker, slug, 'main'));
    const users: Array<{ id: string; username: string; password: string; token: string }> = [];
    for (const name of ['disabled', 'deleted']) {
      const credentials = { username: `${slug}-${name}`, password: 'a long enough password' };
      const created = (await admin.expect(201, 'POST', `/tenants/${slug}/users`, { ...credentials, roles: ['member'] })).body as { id: string };
      const { access_token: token } = await obtainToken({ issuer: platform.issuer, resource, scope: 'mcp', user: credentials });
      for (const url of mainUrls) expect(accepted(await listTools(url, token)), url).toBe(true);
      users.push({ ...credentials, id: created.id, token });
    }
    const [disabled, deleted] = users as [(typeof users)[number], (typeof users)[number]];

    await admin.expect(200, 'PATCH', `/tenants/${slug}/users/${disabled.id}`, { disabled: true });
    await untilEveryReplica(mainUrls, disabled.token, (answer) => answer.status === 401, `the disabled user's token refused on every replica`);
    await admin.expect(204, 'DELETE', `/tenants/${slug}/users/${deleted.id}`);
    await untilEveryReplica(mainUrls, deleted.token, (answer) => answer.status === 401, `the deleted user's token refused on every replica`);
  });
});
