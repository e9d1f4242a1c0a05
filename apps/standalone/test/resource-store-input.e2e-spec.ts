import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCodes, mcpUrl, MODERN_PROTOCOL_VERSION, obtainToken, sendRaw } from '@mcp-platform/shared-testing';
import { AdminApi, adminApiUrl, createPublicTenant, PUBLIC_SERVER, resourcePath as resourcePathOf, uniqueTenant } from './admin-api';
import { adminUserOf, distributedMode, embeddedMode, type Platform } from './platforms';

/** The resource store's per-resource content limit (`MAX_RESOURCE_CONTENT_BYTES`). */
const MAX_CONTENT_BYTES = 512 * 1024;
/** Fastify's default body limit, which the admin API keeps (1 MiB). */
const ADMIN_BODY_LIMIT_BYTES = 1024 * 1024;
const KEPT = { uri: 'e2e://kept', text: 'kept through every refusal' };
const TEMPLATE = 'e2e://items/{id}';
/** A binary resource of exactly the limit: accepted, and served whole in both modes (one NATS message each way). */
const AT_LIMIT = { uri: 'e2e://at-limit', blob: Buffer.alloc(MAX_CONTENT_BYTES, 0x5a).toString('base64') };
const LEVEL_1_ONLY = 'only level-1 {name} variables of letters, digits and _';

/** What both SDK clients offer for the resource store's methods (their own types differ in detail). */
interface StoreClient {
  listResources(params?: { cursor?: string }): Promise<{ resources: Array<{ uri: string }> }>;
  listResourceTemplates(params?: { cursor?: string }): Promise<{ resourceTemplates: Array<{ uriTemplate: string }> }>;
  listPrompts(params?: { cursor?: string }): Promise<{ prompts: Array<{ name: string }> }>;
  readResource(params: { uri: string }): Promise<{ contents: Array<{ uri: string; text?: string; blob?: string }> }>;
}

interface Era {
  name: 'legacy' | 'modern';
  connect(url: string): Promise<{ client: StoreClient; close: () => Promise<void> }>;
  /** The error of a read that finds nothing: spec S-209 (legacy -32002 with the URI) and S-210 (modern -32602, never -32002). */
  notFound: { code: number; message: (uri: string) => string };
}

const eras: Era[] = [
  {
    name: 'legacy',
    notFound: { code: -32002, message: (uri) => `Resource ${uri} not found` },
    connect: async (url) => {
      const client = new LegacyClient({ name: 'e2e-legacy', version: '1.0.0' });
      const transport = new LegacyTransport(new URL(url));
      await client.connect(transport);
      return { client, close: async () => (await transport.terminateSession().catch(() => undefined), await client.close()) };
    },
  },
  {
    name: 'modern',
    notFound: { code: ErrorCodes.InvalidParams, message: (uri) => `Resource ${uri} not found` },
    connect: async (url) => {
      const client = new ModernClient({ name: 'e2e-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } });
      await client.connect(new ModernTransport(new URL(url)));
      return { client, close: () => client.close() };
    },
  },
];

/**
 * Cursors the platform never minted (S-243 → -32602): one far too long, which the broker refuses
 * before forwarding, and garbage of a plausible size, which the resource store refuses.
 */
const BAD_CURSORS: Array<[string, string, RegExp]> = [
  ['100 000 characters', 'A'.repeat(100_000), /Invalid params: cursor must be a string/],
  ['not base64url', 'not a cursor!', /Invalid cursor/],
  ['base64url of no JSON', Buffer.from('garbage').toString('base64url'), /Invalid cursor/],
  ['a JSON cursor of the wrong shape', Buffer.from(JSON.stringify({ after: 42 })).toString('base64url'), /Invalid cursor/],
  ['an empty string', '', /Invalid cursor/],
];

async function failureOf(call: Promise<unknown>): Promise<{ code?: unknown; message?: unknown; data?: unknown }> {
  const outcome = await call.then(
    () => undefined,
    (error: unknown) => error as { code?: unknown; message?: unknown; data?: unknown },
  );
  if (outcome === undefined) throw new Error('the call succeeded; a JSON-RPC error was expected');
  return outcome;
}

describe.each([embeddedMode(), distributedMode()])('resource store under bad input, $name mode', (mode) => {
  let platform: Platform;
  let admin: AdminApi;
  let adminToken: string;
  let serverUrl: string;
  const tenant = uniqueTenant('e2e-rs');
  const resourcePath = (uri: string) => resourcePathOf(tenant, uri);

  beforeAll(async () => {
    platform = await mode.boot();
    serverUrl = mcpUrl(platform.baseUrl, tenant, PUBLIC_SERVER);
    const token = await obtainToken({ issuer: platform.issuer, resource: adminApiUrl(platform), scope: 'admin', user: adminUserOf(platform) });
    adminToken = token.access_token;
    admin = new AdminApi(adminApiUrl(platform), adminToken);
    // A tenant of this run with a public server, so the seeded conformance fixtures stay untouched.
    await createPublicTenant(admin, tenant, 'Resource store input (e2e)');
    await admin.expect(200, 'PUT', resourcePath(KEPT.uri), { name: 'kept', mimeType: 'text/plain', text: KEPT.text });
    await admin.expect(200, 'PUT', `/tenants/${tenant}/resource-templates/items`, { uriTemplate: TEMPLATE, text: 'item {id}' });
  });

  afterAll(async () => {
    await platform?.stop();
  });

  describe.each(eras)('MCP, $name era', (era) => {
    let client: StoreClient;
    let close: () => Promise<void>;

    beforeAll(async () => {
      ({ client, close } = await era.connect(serverUrl));
    });
    afterAll(async () => {
      await close?.();
    });

    it("answers a read of a URI that matches no resource and no template with the era's not-found error, naming the URI", async () => {
      // `{id}` matches one path segment, so the second URI is no match of the template either.
      for (const uri of ['e2e://nothing-here', 'e2e://items/1/extra']) {
        const error = await failureOf(client.readResource({ uri }));
        expect(error.code, uri).toBe(era.notFound.code);
        expect(error.data, uri).toEqual({ uri });
        expect(String(error.message)).toContain(era.notFound.message(uri));
      }
    });

    it.each(BAD_CURSORS)('refuses a cursor that is %s with -32602 on all three lists', async (_kind, cursor, message) => {
      const lists = [client.listResources({ cursor }), client.listResourceTemplates({ cursor }), client.listPrompts({ cursor })];
      for (const error of await Promise.all(lists.map(failureOf))) {
        expect(error.code).toBe(ErrorCodes.InvalidParams);
        expect(String(error.message)).toMatch(message);
      }
    });
  });

  describe('admin API', () => {
    it.each([
      ['an unclosed "{"', 'e2e://bad/{id', 'unclosed "{" at 10'],
      ['an unmatched "}"', 'e2e://bad/id}', 'unmatched "}" at 12'],
      ['the reserved operator {+path}', 'e2e://bad/{+path}', `unsupported expression {+path}: ${LEVEL_1_ONLY}`],
      ['the fragment operator {#x}', 'e2e://bad/{#x}', `unsupported expression {#x}: ${LEVEL_1_ONLY}`],
      ['an empty variable {}', 'e2e://bad/{}', `unsupported expression {}: ${LEVEL_1_ONLY}`],
      ['adjacent variables', 'e2e://bad/{a}{b}', 'adjacent variables before {b} make matching ambiguous'],
      ['no variable at all', 'e2e://bad/plain', 'a template has at least one {variable}'],
    ])('refuses a resource template with %s with 400 naming the problem, and creates nothing', async (_kind, uriTemplate, problem) => {
      const name = `bad-${Math.random().toString(36).slice(2, 8)}`;
      const answer = await admin.request('PUT', `/tenants/${tenant}/resource-templates/${name}`, { uriTemplate, text: 'never served' });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        error: { code: 'INVALID_REQUEST', message: `invalid body: uriTemplate: ${problem}`, issues: [{ path: 'uriTemplate', message: problem }] },
      });
      expect((await admin.request('GET', `/tenants/${tenant}/resource-templates/${name}`)).status).toBe(404);
      const listed = (await admin.expect(200, 'GET', `/tenants/${tenant}/resource-templates`)).body as { resourceTemplates: Array<{ name: string }> };
      expect(listed.resourceTemplates.map((template) => template.name)).toEqual(['items']);
    });

    it.each([
      [
        'a binary body 1 KiB over',
        { mimeType: 'application/octet-stream', blob: Buffer.alloc(MAX_CONTENT_BYTES + 1024, 0xab).toString('base64') },
        'blob',
        `at most ${MAX_CONTENT_BYTES} bytes (base64)`,
      ],
      ['a text 1 byte over', { mimeType: 'text/plain', text: 'x'.repeat(MAX_CONTENT_BYTES + 1) }, 'text', `at most ${MAX_CONTENT_BYTES} bytes of UTF-8`],
    ])('refuses %s the per-resource limit with 400 naming the limit, and stores nothing', async (_kind, content, field, problem) => {
      const uri = `e2e://too-big/${field}`;
      const answer = await admin.request('PUT', resourcePath(uri), { name: 'too big', ...content });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        error: { code: 'INVALID_REQUEST', message: `invalid body: ${field}: ${problem}`, issues: [{ path: field, message: problem }] },
      });
      expect((await admin.request('GET', resourcePath(uri))).status).toBe(404);
    });

    it('accepts a binary body of exactly the per-resource limit', async () => {
      const answer = await admin.request('PUT', resourcePath(AT_LIMIT.uri), {
        name: 'at the limit',
        mimeType: 'application/octet-stream',
        blob: AT_LIMIT.blob,
      });
      expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(200);
      expect(answer.body).toMatchObject({ created: true, resource: { uri: AT_LIMIT.uri, size: MAX_CONTENT_BYTES } });
    });

    it("refuses a binary body over the admin API's HTTP body limit with 413, and stores nothing", async () => {
      const uri = 'e2e://too-big/body';
      const body = JSON.stringify({
        name: 'too big',
        mimeType: 'application/octet-stream',
        blob: Buffer.alloc(ADMIN_BODY_LIMIT_BYTES, 0xcd).toString('base64'),
      });
      const answer = await sendRaw({
        url: `${adminApiUrl(platform)}${resourcePath(uri)}`,
        method: 'PUT',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json', accept: 'application/json' },
        body,
      });
      expect(answer.status).toBe(413);
      // Fastify refuses the body before any admin route runs; the answer still has the API's envelope.
      expect(JSON.parse(answer.body)).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) } });
      expect((await admin.request('GET', resourcePath(uri))).status).toBe(404);
    });
  });

  describe.each(eras)('afterwards, $name era', (era) => {
    it('still lists and reads, and serves a resource written through the admin API now', async () => {
      const { client, close } = await era.connect(serverUrl);
      try {
        const fresh = { uri: `e2e://after/${era.name}`, text: `written after the refusals (${era.name})` };
        const written = await admin.request('PUT', resourcePath(fresh.uri), { name: 'after', mimeType: 'text/plain', text: fresh.text });
        expect(written.status, JSON.stringify(written.body)).toBe(200);
        expect(written.body).toMatchObject({ created: true, resource: { uri: fresh.uri, size: Buffer.byteLength(fresh.text) } });

        expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual(expect.arrayContaining([KEPT.uri, AT_LIMIT.uri, fresh.uri]));
        expect((await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate)).toEqual([TEMPLATE]);
        expect((await client.readResource({ uri: KEPT.uri })).contents).toEqual([{ uri: KEPT.uri, mimeType: 'text/plain', text: KEPT.text }]);
        expect((await client.readResource({ uri: 'e2e://items/7' })).contents[0]?.text).toBe('item 7');
        expect((await client.readResource({ uri: fresh.uri })).contents).toEqual([{ uri: fresh.uri, mimeType: 'text/plain', text: fresh.text }]);
        expect((await client.readResource({ uri: AT_LIMIT.uri })).contents).toEqual([
          { uri: AT_LIMIT.uri, mimeType: 'application/octet-stream', blob: AT_LIMIT.blob },
        ]);
        expect((await client.listPrompts()).prompts).toEqual([]);
      } finally {
        await close();
      }
    });
  });
});
