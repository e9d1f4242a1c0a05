import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as PgClient } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearerChallenge,
  decodeJwt,
  launchChromium,
  mcpUrl,
  OAuthBrowser,
  OAuthBrowserError,
  OAuthTestClient,
  obtainToken,
  postForm,
  type TestUser,
  toolResultText,
  waitUntil,
} from '@mcp-platform/shared-testing';
import { type AdminAnswer, AdminApi, adminApiUrl, calculatorTool, createPublicTenant, PUBLIC_SERVER, publicServer, uniqueTenant, uuidTool } from './admin-api';
import { legacyClient, recordingFetch } from './oauth-flows';
import { adminUserOf, distributedMode, embeddedMode, type Platform, type PlatformMode, seededUrls } from './platforms';

const modes: PlatformMode[] = [embeddedMode(), distributedMode(1)];

/** The routes the OpenAPI document must describe (method and path template). */
const DOCUMENTED_ROUTES: [string, string][] = [
  ['get', '/admin/v1/tenants'],
  ['post', '/admin/v1/tenants'],
  ['delete', '/admin/v1/tenants/{tenant}'],
  ['post', '/admin/v1/tenants/{tenant}/users'],
  ['patch', '/admin/v1/tenants/{tenant}/users/{id}'],
  ['get', '/admin/v1/tenants/{tenant}/roles'],
  ['put', '/admin/v1/tenants/{tenant}/virtual-servers/{name}'],
  ['put', '/admin/v1/tenants/{tenant}/tools/{name}'],
  ['post', '/admin/v1/tenants/{tenant}/tools/{name}/disable'],
  ['get', '/admin/v1/tenants/{tenant}/tasks'],
  ['post', '/admin/v1/tenants/{tenant}/tasks/{taskId}/cancel'],
];

/** A task as the admin API lists it (the fields this file reads). */
interface AdminTask {
  taskId: string;
  status: string;
  statusMessage?: string;
  server: string;
  tool: string;
  era: string;
  owner: { subject: string; clientId?: string; anonymous: boolean };
  runsStarted: number;
}

/** Distributed mode: whether the task's run is still open, read from the scheduler's table. */
async function runOpen(databaseUrl: string, taskId: string): Promise<boolean | undefined> {
  const client = new PgClient({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const found = await client.query<{ run_open: boolean }>('SELECT run_open FROM task_scheduler.tasks WHERE id = $1', [taskId]);
    return found.rows[0]?.run_open;
  } finally {
    await client.end();
  }
}

describe.each(modes)('admin API, $name mode', (mode) => {
  let platform: Platform;
  const tenant = uniqueTenant('e2e-t');
  const tenantAdmin: TestUser = { username: `${tenant}-admin`, password: `pw-${tenant}-0123456789` };
  let serverUrl: string;

  beforeAll(async () => {
    platform = await mode.boot();
    serverUrl = mcpUrl(platform.baseUrl, tenant, 'main');
  });

  afterAll(async () => {
    await platform?.stop();
  });

  it('refuses a call without a token with 401 and a challenge naming its resource metadata', async () => {
    const answer = await new AdminApi(adminApiUrl(platform), undefined).request('GET', '/tenants');
    expect(answer.status).toBe(401);
    const challenge = bearerChallenge(answer.wwwAuthenticate ?? undefined);
    const metadataUrl = `${platform.authUrl}/.well-known/oauth-protected-resource/admin/v1`;
    expect(challenge).toMatchObject({ resourceMetadata: metadataUrl, scope: 'admin' });
    const metadata = (await (await fetch(metadataUrl)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ resource: adminApiUrl(platform), authorization_servers: [platform.issuer], scopes_supported: ['admin'] });
  });

  it('publishes an OpenAPI document that lists its routes', async () => {
    const response = await fetch(`${platform.authUrl}/admin/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi?: string; paths?: Record<string, Record<string, unknown>> };
    expect(document.openapi).toMatch(/^3\./);
    for (const [method, path] of DOCUMENTED_ROUTES) expect(document.paths?.[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
  });

  it("gets an admin token through Swagger UI's Authorize dialog in Chromium (PKCE, the docs' own client), and Try it out answers 200", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${platform.authUrl}/admin/docs`);
      await page.locator('button.authorize').first().click();
      const oauth = page.locator('.modal-ux .auth-container').filter({ hasText: 'oauth2 (OAuth2, authorizationCode with PKCE)' });
      expect(await oauth.locator('input[type=checkbox]').first().isChecked(), 'the admin scope is not preselected').toBe(true);
      // Authorize opens the platform's own sign-in page in a window of its own.
      const popupOpened = page.waitForEvent('popup');
      await oauth.locator('button.modal-btn.auth.authorize').click();
      const signIn = await popupOpened;
      expect(new URL(signIn.url()).origin).toBe(new URL(platform.issuer).origin);
      await signIn.locator('#username').fill(adminUserOf(platform).username);
      await signIn.locator('#password').fill(adminUserOf(platform).password);
      await signIn.locator('form#login button[type=submit]').click();
      await signIn.locator('form#consent').waitFor();
      expect(await signIn.locator('body').innerText()).toContain('Admin API docs (Swagger UI) wants to use the administration API');
      await signIn.locator('form#consent button[type=submit]').click();
      // Swagger UI's oauth2-redirect.html hands the code back to the docs page and closes the window.
      await signIn.waitForEvent('close');
      await oauth.getByText('Authorized').waitFor();
      await page.locator('.modal-ux button.close-modal').first().click();

      const operation = page.locator('#operations-tenants-listTenants');
      await operation.locator('.opblock-summary').click();
      await operation.getByRole('button', { name: 'Try it out' }).click();
      await operation.getByRole('button', { name: 'Execute' }).click();
      const status = operation.locator('.live-responses-table tbody .response-col_status').first();
      await status.waitFor();
      expect((await status.innerText()).trim()).toBe('200');
      expect(await operation.locator('.live-responses-table tbody .response-col_description').first().innerText()).toContain('"tenants"');
    } finally {
      await browser.close();
    }
  });

  it('lets a tenant automate its administration with a client_credentials client that has the admin scope, and only that tenant', async () => {
    const slug = uniqueTenant('e2e-auto');
    const platformAdmin = await AdminApi.signIn(platform, adminUserOf(platform));
    await platformAdmin.expect(201, 'POST', '/tenants', { slug, name: 'Automated (e2e)' });
    const register = async (scope: string) =>
      (
        await platformAdmin.expect(201, 'POST', `/tenants/${slug}/clients`, {
          client_name: `ci ${scope}`,
          grant_types: ['client_credentials'],
          token_endpoint_auth_method: 'client_secret_basic',
          scope,
        })
      ).body as { client_id: string; client_secret: string };
    const tokenFor = (client: { client_id: string; client_secret: string }) =>
      postForm(
        `${platform.issuer}/token`,
        { grant_type: 'client_credentials', resource: adminApiUrl(platform), scope: 'admin' },
        { clientSecretBasic: { id: client.client_id, secret: client.client_secret } },
      );

    const robot = await register('admin mcp');
    const issued = await tokenFor(robot);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    expect(decodeJwt(issued.body['access_token'] as string).payload).toMatchObject({
      sub: robot.client_id,
      tenant: slug,
      roles: ['tenant-admin'],
      scope: 'admin',
    });
    const automation = new AdminApi(adminApiUrl(platform), issued.body['access_token'] as string);
    await automation.expect(200, 'PUT', `/tenants/${slug}/tools/calc`, calculatorTool());
    expect((await automation.request('GET', `/tenants/${slug}/tools`)).status).toBe(200);
    expect((await automation.request('GET', '/tenants/demo/tools')).status).toBe(403);
    expect((await automation.request('GET', '/tenants')).status).toBe(403);

    // Without the admin scope a client gets no admin token at all.
    const refused = await tokenFor(await register('mcp'));
    expect(refused.status).toBe(400);
    expect(refused.body['error']).toBe('invalid_target');

    // Deleting the client ends its rights at once.
    await platformAdmin.expect(204, 'DELETE', `/tenants/${slug}/clients/${robot.client_id}`);
    expect((await automation.request('GET', `/tenants/${slug}/tools`)).status).toBe(401);
  });

  it('lets the platform admin create a tenant, a user, a tool and a virtual server that the user can then call', async () => {
    const admin = await AdminApi.signIn(platform, adminUserOf(platform));
    const created = await admin.request('POST', '/tenants', { slug: tenant, name: 'Tenant T (e2e)' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ slug: tenant, disabled: false });

    const user = await admin.request('POST', `/tenants/${tenant}/users`, { ...tenantAdmin, roles: ['tenant-admin'] });
    expect(user.status, JSON.stringify(user.body)).toBe(201);
    expect(user.body).toMatchObject({ username: tenantAdmin.username, tenant, roles: ['tenant-admin'], disabled: false });
    expect(JSON.stringify(user.body)).not.toContain(tenantAdmin.password);

    const tool = await admin.request('PUT', `/tenants/${tenant}/tools/calc`, calculatorTool());
    expect(tool.status, JSON.stringify(tool.body)).toBe(200);
    expect(tool.body).toMatchObject({ created: true, tool: { name: 'calc', kind: 'builtin' } });

    const server = await admin.request('PUT', `/tenants/${tenant}/virtual-servers/main`, { title: 'T main', tools: ['calc'] });
    expect(server.status, JSON.stringify(server.body)).toBe(200);
    // The API shows the server's MCP URL, the audience of its callers' tokens; protected by default.
    expect(server.body).toMatchObject({ created: true, server: { name: 'main', public: false, tools: ['calc'], url: serverUrl } });

    const token = await obtainToken({ issuer: platform.issuer, resource: serverUrl, scope: 'mcp', user: tenantAdmin });
    const client = legacyClient();
    const transport = new LegacyTransport(new URL(serverUrl), { requestInit: { headers: { authorization: `Bearer ${token.access_token}` } } });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((listed) => listed.name)).toEqual(['calc']);
      const result = await client.callTool({ name: 'calc', arguments: { expression: '6 * 7' } });
      expect(result.structuredContent).toEqual({ expression: '6 * 7', result: 42 });
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });

  it("sends tools/list_changed on a connected legacy client's GET stream when the admin changes the server's tools", async () => {
    const token = await obtainToken({ issuer: platform.issuer, resource: serverUrl, scope: 'mcp', user: tenantAdmin });
    const recorder = recordingFetch();
    const client = legacyClient();
    const transport = new LegacyTransport(new URL(serverUrl), {
      fetch: recorder.fetch,
      requestInit: { headers: { authorization: `Bearer ${token.access_token}` } },
    });
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes += 1;
    });
    await client.connect(transport);
    try {
      // The SDK opens the GET stream after `initialized`; a change before that would have no stream to reach.
      await waitUntil(async () => recorder.entries.includes(`GET ${serverUrl} 200`), { timeoutMs: 10_000, description: 'the GET stream to open' });
      const admin = await AdminApi.signIn(platform, adminUserOf(platform));
      await admin.expect(200, 'PUT', `/tenants/${tenant}/tools/uuids`, uuidTool());
      const tools = [
        ['calc', 'uuids'],
        ['uuids', 'calc'],
        ['calc', 'uuids'],
      ];
      // Each PUT is a real change of the server's tool list; more than one only if the stream was not registered yet.
      for (const [index, list] of tools.entries()) {
        await admin.expect(200, 'PUT', `/tenants/${tenant}/virtual-servers/main`, { title: `T main ${index}`, tools: list });
        const notified = await waitUntil(async () => changes > 0, { timeoutMs: 5_000, description: 'notifications/tools/list_changed' }).catch(() => false);
        if (notified) break;
      }
      expect(changes).toBeGreaterThan(0);
      expect((await client.listTools()).tools.map((listed) => listed.name).sort()).toEqual(['calc', 'uuids']);
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });

  it('keeps a tenant admin inside their own tenant: 403 for another tenant and for the tenants collection', async () => {
    const tenantAdminApi = await AdminApi.signIn(platform, tenantAdmin);
    expect((await tenantAdminApi.request('GET', `/tenants/${tenant}/users`)).status).toBe(200);
    expect((await tenantAdminApi.request('GET', `/tenants/${tenant}/tools`)).status).toBe(200);

    for (const [method, path, body] of [
      ['GET', '/tenants/demo/users', undefined],
      ['GET', '/tenants/demo/tools', undefined],
      ['PUT', '/tenants/demo/tools/intruder', calculatorTool()],
      ['PUT', '/tenants/demo/virtual-servers/default', { tools: [] }],
      ['POST', '/tenants/demo/users', { username: `${tenant}-intruder`, password: 'intruder-password-0123', roles: ['tenant-admin'] }],
      ['GET', '/tenants', undefined],
      ['POST', '/tenants', { slug: `${tenant}-x`, name: 'nope' }],
      ['DELETE', '/tenants/demo', undefined],
    ] as const) {
      const answer = await tenantAdminApi.request(method, path, body);
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(403);
    }
    // Nothing was changed by the refused calls.
    const platformAdmin = await AdminApi.signIn(platform, adminUserOf(platform));
    const demoTools = (await platformAdmin.expect(200, 'GET', '/tenants/demo/tools')).body as { tools: { name: string }[] };
    expect(demoTools.tools.map((tool) => tool.name)).not.toContain('intruder');
    const demoServer = (await platformAdmin.expect(200, 'GET', '/tenants/demo/virtual-servers/default')).body as { tools: string[] };
    expect(demoServer.tools.length).toBeGreaterThan(0);
  });

  it("lets the demo tenant's admin see and cancel a user's running task, stopping it; another tenant's admin is refused", async () => {
    const platformAdmin = await AdminApi.signIn(platform, adminUserOf(platform));
    const demoAdmin: TestUser = { username: `${tenant}-demo-admin`, password: `pw-demo-${tenant}-0123456789` };
    await platformAdmin.expect(201, 'POST', '/tenants/demo/users', { ...demoAdmin, roles: ['tenant-admin'] });
    const demoAdminApi = await AdminApi.signIn(platform, demoAdmin);

    const demoUrl = seededUrls(platform.baseUrl).demo;
    const token = await obtainToken({ issuer: platform.issuer, resource: demoUrl, scope: 'mcp', user: platform.demoUser });
    const client = legacyClient();
    const transport = new LegacyTransport(new URL(demoUrl), { requestInit: { headers: { authorization: `Bearer ${token.access_token}` } } });
    await client.connect(transport);
    try {
      const created = await client.request({ method: 'tools/call', params: { name: 'long_operation', arguments: { seconds: 30 } } }, CreateTaskResultSchema, {
        task: { ttl: 120_000 },
      });
      const taskId = created.task.taskId;
      const listedTask = async (status?: string) => {
        const answer = await demoAdminApi.expect(200, 'GET', `/tenants/demo/tasks${status ? `?status=${status}` : ''}`);
        return (answer.body as { tasks: AdminTask[] }).tasks.find((task) => task.taskId === taskId);
      };
      // Running: an executor's worker claimed it.
      const running = await waitUntil(
        async () => {
          const task = await listedTask('working');
          return task !== undefined && task.runsStarted > 0 ? task : undefined;
        },
        { timeoutMs: 15_000, description: 'the task to run' },
      );
      expect(running).toMatchObject({
        status: 'working',
        server: 'default',
        tool: 'long_operation',
        era: 'legacy',
        owner: { anonymous: false },
        runsStarted: 1,
      });
      // The arguments are the owner's: never shown to an administrator.
      expect(JSON.stringify(running)).not.toContain('seconds');

      // Another tenant's admin sees none of it and cancels nothing.
      const otherAdmin = await AdminApi.signIn(platform, tenantAdmin);
      for (const [method, path] of [
        ['GET', '/tenants/demo/tasks'],
        ['POST', `/tenants/demo/tasks/${taskId}/cancel`],
      ] as const) {
        const answer = await otherAdmin.request(method, path);
        expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(403);
      }
      const own = (await otherAdmin.expect(200, 'GET', `/tenants/${tenant}/tasks`)).body as { tasks: AdminTask[] };
      expect(own.tasks.map((task) => task.taskId)).not.toContain(taskId);
      expect((await listedTask())?.status).toBe('working');

      const cancelled = await demoAdminApi.request('POST', `/tenants/demo/tasks/${taskId}/cancel`);
      expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
      expect(cancelled.body).toMatchObject({ taskId, status: 'cancelled', statusMessage: 'The task was cancelled by an administrator' });
      expect(await listedTask('cancelled')).toMatchObject({ status: 'cancelled' });
      expect(await listedTask('working')).toBeUndefined();
      // Its owner sees it cancelled too, and a second cancellation is refused (terminal, S-283).
      await expect(client.experimental.tasks.getTask(taskId)).resolves.toMatchObject({
        status: 'cancelled',
        statusMessage: 'The task was cancelled by an administrator',
      });
      expect((await demoAdminApi.request('POST', `/tenants/demo/tasks/${taskId}/cancel`)).status).toBe(400);
      if (platform.mode === 'distributed') {
        // The run stopped well before its 30 seconds: the executor heard the cancellation.
        const database = platform.database.url;
        await waitUntil(async () => (await runOpen(database, taskId)) === false, { timeoutMs: 10_000, description: 'the cancelled run to stop' });
      }
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });

  it("tells an MCP caller of a refused HTTP tool only an error id, and the tool's admin the reason, the setting and never the header value (issue 13 items 5, 7, 16)", async () => {
    const admin = await AdminApi.signIn(platform, adminUserOf(platform));
    const webTenant = uniqueTenant('e2e-web');
    await createPublicTenant(admin, webTenant, 'HTTP tools (e2e)');
    const secret = `sk-e2e-${Math.random().toString(36).slice(2)}`;
    // Nothing needs to listen there: the guard refuses `localhost` (it resolves to loopback) before connecting.
    const tool = { inputSchema: { type: 'object' }, kind: 'http', config: { url: 'http://localhost:9/weather', headers: { 'X-Api-Key': secret } } };
    const put = await admin.expect(200, 'PUT', `/tenants/${webTenant}/tools/weather`, tool);
    await admin.expect(200, 'PUT', `/tenants/${webTenant}/virtual-servers/${PUBLIC_SERVER}`, publicServer(['weather']));

    const client = legacyClient();
    const transport = new LegacyTransport(new URL(mcpUrl(platform.baseUrl, webTenant, PUBLIC_SERVER)));
    await client.connect(transport);
    let text: string;
    try {
      const result = await client.callTool({ name: 'weather', arguments: {} });
      expect(result.isError).toBe(true);
      text = toolResultText(result);
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
    const errorId = /^The tool's endpoint could not be reached \(error id ([0-9a-f-]{36})\)\.$/.exec(text)?.[1];
    expect(errorId, text).toBeDefined();
    expect(text).not.toMatch(/localhost|127\.0\.0\.1|::1|TOOL_HTTP/);

    let shown: AdminAnswer | undefined;
    await waitUntil(
      async () => {
        shown = await admin.expect(200, 'GET', `/tenants/${webTenant}/tools/weather`);
        return (shown.body as { lastError?: unknown }).lastError !== undefined;
      },
      { timeoutMs: 10_000, description: 'the tool’s lastError' },
    );
    expect(shown?.body).toMatchObject({
      config: { url: 'http://localhost:9/weather', headers: { 'x-api-key': { set: true } } },
      lastError: {
        errorId,
        kind: 'refused',
        detail: expect.stringMatching(/localhost resolves to .*not a public address.*TOOL_HTTP_ALLOW_PRIVATE_NETWORKS=true/),
      },
    });
    const listed = await admin.expect(200, 'GET', `/tenants/${webTenant}/tools`);
    expect(JSON.stringify([put.body, shown?.body, listed.body])).not.toContain(secret);
  });

  it('gives a member without an admin role no access to the admin API', async () => {
    const client = await OAuthTestClient.register(platform.issuer);
    const attempt = await client
      .authorize(new OAuthBrowser(), platform.demoUser, { resource: adminApiUrl(platform), scope: 'admin' })
      .catch((error: unknown) => {
        if (error instanceof OAuthBrowserError && (error.response?.status ?? 0) >= 400) return undefined;
        throw error;
      });
    // Refused at the authorization server (an error page, no code, or no token), or a token without the rights (403): never access.
    if (attempt === undefined) return;
    const outcome = attempt;
    if (outcome.code === undefined) {
      expect(outcome.error).toEqual(expect.any(String));
      return;
    }
    const exchanged = await client.exchangeCode(outcome.code, { ...(outcome.verifier ? { verifier: outcome.verifier } : {}), resource: adminApiUrl(platform) });
    if (exchanged.tokens === undefined) {
      expect(exchanged.status).toBe(400);
      return;
    }
    const answer = await new AdminApi(adminApiUrl(platform), exchanged.tokens.access_token).request('GET', '/tenants/demo/users');
    expect(answer.status).toBe(403);
  });
});
