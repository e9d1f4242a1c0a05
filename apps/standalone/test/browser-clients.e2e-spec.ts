import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, protectedResourceMetadataUrl } from '@mcp-platform/shared-testing';
import { type PageHost, startPageHost } from './browser-page-host';
import { distributedMode, embeddedMode, type Platform, seededUrls } from './platforms';

/** The conformance server's tool with one string argument. */
const TEXT_TOOL = 'json_schema_2020_12_tool';

/** What the page's scripts may use: the client the page loaded (see browser-page-host.ts). */
interface BrowserGlobals {
  mcpReady?: boolean;
  mcpLoadError?: string;
  mcp: {
    Client: new (
      info: { name: string; version: string },
      options?: Record<string, unknown>,
    ) => {
      connect(transport: unknown): Promise<void>;
      listTools(): Promise<{ tools: Array<{ name: string }> }>;
      callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<{ content: unknown[]; isError?: boolean }>;
      close(): Promise<void>;
    };
    StreamableHTTPClientTransport: new (url: URL) => { sessionId?: string; protocolVersion?: string; terminateSession(): Promise<void> };
  };
}

/** Opens the page of `host` and waits until the client loaded. */
async function openPage(browser: Browser, host: PageHost): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${host.origin}/`);
  await page.waitForFunction(() => {
    const globals = globalThis as unknown as BrowserGlobals;
    return globals.mcpReady === true || globals.mcpLoadError !== undefined;
  });
  const loadError = await page.evaluate(() => (globalThis as unknown as BrowserGlobals).mcpLoadError);
  expect(loadError).toBeUndefined();
  return page;
}

describe.each([embeddedMode(), distributedMode(1)])('browser clients on another origin (Chromium), $name mode', (mode) => {
  let platform: Platform;
  let urls: { demo: string; conformance: string };
  let allowedPage: PageHost;
  let foreignPage: PageHost;
  let browser: Browser;

  beforeAll(async () => {
    [allowedPage, foreignPage] = await Promise.all([startPageHost(), startPageHost()]);
    platform = await mode.boot({ allowedOrigins: [allowedPage.origin] });
    urls = seededUrls(platform.baseUrl);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
    await Promise.all([allowedPage?.close(), foreignPage?.close()]);
  });

  it('runs a legacy session with the official client: initialize, the session id read, tools/list, tools/call', async () => {
    const page = await openPage(browser, allowedPage);
    const outcome = await page.evaluate(
      async ({ url, tool }) => {
        const { Client, StreamableHTTPClientTransport } = (globalThis as unknown as BrowserGlobals).mcp;
        const client = new Client({ name: 'browser-legacy', version: '1.0.0' });
        const transport = new StreamableHTTPClientTransport(new URL(url));
        await client.connect(transport);
        const listed = await client.listTools();
        const called = await client.callTool({ name: tool, arguments: { email: 'from the browser' } });
        const sessionId = transport.sessionId;
        await transport.terminateSession();
        await client.close();
        return { sessionId, protocolVersion: transport.protocolVersion, tools: listed.tools.map((entry) => entry.name), called };
      },
      { url: urls.conformance, tool: TEXT_TOOL },
    );
    expect(outcome.sessionId).toMatch(/^[\x21-\x7e]{16,}$/);
    expect(outcome.protocolVersion).toBe('2025-11-25');
    expect(outcome.tools).toContain(TEXT_TOOL);
    expect(outcome.called).toEqual({ content: [{ type: 'text', text: 'Received: {"email":"from the browser"}' }] });
    await page.close();
  });

  it('opens a legacy GET stream with fetch: the session id and the stream are readable across origins', async () => {
    const page = await openPage(browser, allowedPage);
    const outcome = await page.evaluate(
      async ({ url }) => {
        const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
        const initialized = await fetch(url, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'browser-raw', version: '1' } },
          }),
        });
        const sessionId = initialized.headers.get('mcp-session-id') ?? '';
        const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
        await fetch(url, { method: 'POST', headers: { ...json, ...session }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
        const stream = await fetch(url, { headers: { accept: 'text/event-stream', ...session } });
        const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
        const first = new TextDecoder().decode((await reader.read()).value);
        // Ended by the server (S-84), not cancelled: a DELETE right after a cancel may go out on the cancelled
        // stream's connection in Chromium, which then retries it and reads 404 for the session it just ended.
        const deleted = await fetch(url, { method: 'DELETE', headers: session });
        let ended = false;
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read());
        ended = true;
        return { sessionId, streamStatus: stream.status, streamType: stream.headers.get('content-type'), first, deleted: deleted.status, ended };
      },
      { url: urls.conformance },
    );
    expect(outcome.sessionId).toMatch(/^[\x21-\x7e]{16,}$/);
    expect(outcome.streamStatus).toBe(200);
    expect(outcome.streamType).toBe('text/event-stream');
    // spec S-80: the GET stream of a 2025-11-25 session opens with its priming event, an id to resume from.
    expect(outcome.first).toMatch(/^id: \S+\nretry: \d+\n/);
    expect(outcome.deleted).toBe(200);
    expect(outcome.ended).toBe(true);
    await page.close();
  });

  it('sends a modern request with the official client pinned to 2026-07-28 (Mcp-Method and Mcp-Name pass the preflight)', async () => {
    const page = await openPage(browser, allowedPage);
    const outcome = await page.evaluate(
      async ({ url, tool }) => {
        const { Client, StreamableHTTPClientTransport } = (globalThis as unknown as BrowserGlobals).mcp;
        const client = new Client({ name: 'browser-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
        const transport = new StreamableHTTPClientTransport(new URL(url));
        await client.connect(transport);
        const called = await client.callTool({ name: tool, arguments: { email: 'modern browser' } });
        await client.close();
        return { sessionId: transport.sessionId ?? null, called };
      },
      { url: urls.conformance, tool: TEXT_TOOL },
    );
    expect(outcome.sessionId).toBeNull();
    expect(outcome.called).toMatchObject({ content: [{ type: 'text', text: 'Received: {"email":"modern browser"}' }] });
    await page.close();
  });

  it('reads the 401 challenge of a protected server, then its Protected Resource Metadata, to start OAuth', async () => {
    const page = await openPage(browser, allowedPage);
    const outcome = await page.evaluate(
      async ({ url }) => {
        const refused = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'browser', version: '1' } },
          }),
        });
        const challenge = refused.headers.get('www-authenticate') ?? '';
        const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1] ?? '';
        const metadata = await fetch(metadataUrl, { headers: { 'mcp-protocol-version': '2025-11-25' } });
        return {
          status: refused.status,
          challenge,
          metadataUrl,
          metadataStatus: metadata.status,
          metadata: (await metadata.json()) as { resource?: string; authorization_servers?: string[] },
        };
      },
      { url: urls.demo },
    );
    expect(outcome.status).toBe(401);
    expect(outcome.challenge).toMatch(/^Bearer /);
    expect(outcome.metadataUrl).toBe(protectedResourceMetadataUrl(urls.demo));
    expect(outcome.metadataStatus).toBe(200);
    expect(outcome.metadata.resource).toBe(urls.demo);
    expect(outcome.metadata.authorization_servers).toEqual([platform.issuer]);
    await page.close();
  });

  it('refuses a page of an origin not in ALLOWED_ORIGINS: the browser gets no answer it may read', async () => {
    const page = await openPage(browser, foreignPage);
    const outcome = await page.evaluate(
      async ({ url }) => {
        const attempts: string[] = [];
        try {
          await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
          });
          attempts.push('fetch answered');
        } catch (error) {
          attempts.push(`fetch refused: ${(error as Error).name}`);
        }
        const { Client, StreamableHTTPClientTransport } = (globalThis as unknown as BrowserGlobals).mcp;
        try {
          await new Client({ name: 'browser-foreign', version: '1.0.0' }).connect(new StreamableHTTPClientTransport(new URL(url)));
          attempts.push('client connected');
        } catch {
          attempts.push('client refused');
        }
        return attempts;
      },
      { url: urls.conformance },
    );
    expect(outcome).toEqual(['fetch refused: TypeError', 'client refused']);
    // What the browser's preflight got: 403, and no permission to read anything.
    const preflight = await fetch(urls.conformance, { method: 'OPTIONS', headers: { origin: foreignPage.origin, 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    await page.close();
  });

  it('adds no CORS outside the MCP endpoints: the admin API does not answer the page’s origin, the OAuth endpoints keep their own', async () => {
    const preflight = (path: string) =>
      fetch(`${platform.authUrl}${path}`, {
        method: 'OPTIONS',
        headers: { origin: allowedPage.origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
    const admin = await preflight('/admin/v1/tenants');
    expect(admin.headers.get('access-control-allow-origin')).toBeNull();
    // The token endpoint answers browser-based OAuth clients itself (the authorization server's CORS, not the MCP edge's).
    const token = await preflight('/oauth/token');
    expect(token.headers.get('access-control-expose-headers') ?? '').not.toContain('mcp-session-id');
  });
});
