import { createHash } from 'node:crypto';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, type Tool as LegacyTool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacyCallId } from '@mcp-platform/session-broker';
import {
  ErrorCodes,
  META_KEYS,
  MODERN_PROTOCOL_VERSION,
  obtainToken,
  openLegacySession,
  sendRaw,
  sseMessages,
  toolResultText,
  waitUntil,
} from '@mcp-platform/shared-testing';
import { distributedMode, embeddedMode, type Platform, type PlatformMode, seededUrls, watchCancellations } from './platforms';

const DEMO_TOOLS = [
  'calculate',
  'confirm_action',
  'current_time',
  'export_report',
  'generate_uuid',
  'hash_text',
  'list_client_roots',
  'long_operation',
  'summarize_text',
  'text_statistics',
];
const SHA256_OF_ABC = createHash('sha256').update('abc').digest('hex');
/** `demo/default` requires a token; `demo:crypto` lets the demo user see and call `hash_text` too. */
const DEMO_SCOPES = 'mcp demo:crypto';

/** The client implementations under test, pinned to one era each. */
function legacyClient(): LegacyClient {
  return new LegacyClient({ name: 'e2e-legacy', version: '1.0.0' });
}

function modernClient(): ModernClient {
  return new ModernClient({ name: 'e2e-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } });
}

/** Walks `tools/list` page by page; fails on a repeated cursor or a duplicate tool. */
async function allPages(list: (cursor?: string) => Promise<{ tools: { name: string }[]; nextCursor?: string }>): Promise<{ names: string[]; pages: number }> {
  const names: string[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await list(cursor);
    pages += 1;
    names.push(...page.tools.map((tool) => tool.name));
    cursor = page.nextCursor;
    if (cursor !== undefined) {
      expect(cursors.has(cursor), `cursor ${cursor} repeated`).toBe(false);
      cursors.add(cursor);
    }
  } while (cursor !== undefined && pages < 50);
  expect(new Set(names).size).toBe(names.length);
  return { names, pages };
}

/** What both SDK clients offer for the resource store's methods (their own types differ in detail). */
interface ResourceStoreClient {
  listResources(): Promise<{ resources: Array<{ uri: string }> }>;
  listResourceTemplates(): Promise<{ resourceTemplates: Array<{ uriTemplate: string }> }>;
  readResource(params: { uri: string }): Promise<{ contents: Array<{ uri: string; mimeType?: string }> }>;
  listPrompts(): Promise<{ prompts: Array<{ name: string }> }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<{ messages: unknown[] }>;
  complete(params: {
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
    argument: { name: string; value: string };
  }): Promise<{ completion: { values: string[] } }>;
}

function errorCodeOf(error: unknown): unknown {
  return (error as { code?: unknown } | undefined)?.code;
}

const modes: PlatformMode[] = [embeddedMode(), distributedMode(2)];

describe.each(modes)('MCP platform, $name mode', (mode) => {
  let platform: Platform;
  let urls: { demo: string; conformance: string };
  /** The demo user's bearer token for `demo/default`, obtained through the browser flow (the conformance server is public). */
  let auth: Record<string, string>;

  beforeAll(async () => {
    platform = await mode.boot();
    urls = seededUrls(platform.baseUrl);
    const token = await obtainToken({ issuer: platform.issuer, resource: urls.demo, scope: DEMO_SCOPES, user: platform.demoUser });
    auth = { authorization: `Bearer ${token.access_token}` };
  });

  afterAll(async () => {
    await platform?.stop();
  });

  describe('legacy client (@modelcontextprotocol/sdk 1.x, Client + StreamableHTTPClientTransport)', () => {
    let client: LegacyClient;
    let transport: LegacyTransport;

    beforeAll(async () => {
      client = legacyClient();
      transport = new LegacyTransport(new URL(urls.demo), { requestInit: { headers: auth } });
      await client.connect(transport);
    });

    afterAll(async () => {
      await transport?.terminateSession().catch(() => undefined);
      await client?.close();
    });

    it('initializes a session at 2025-11-25 and advertises tools and logging', () => {
      expect(transport.sessionId).toMatch(/^[\x21-\x7e]{16,}$/);
      expect(transport.protocolVersion).toBe('2025-11-25');
      expect(client.getServerCapabilities()).toMatchObject({ tools: expect.any(Object), logging: expect.any(Object) });
      expect(client.getServerVersion()?.name).toEqual(expect.any(String));
    });

    it('renders the demo summarize prompt without its optional length as a plain sentence, no empty "()" (issue 13 item 16)', async () => {
      const without = await client.getPrompt({ name: 'summarize', arguments: { text: 'The text.' } });
      expect(without.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Summarize the following text:\n\nThe text.' } }]);
      const withLength = await client.getPrompt({ name: 'summarize', arguments: { text: 'The text.', length: 'one sentence' } });
      expect(withLength.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Summarize the following text (one sentence):\n\nThe text.' } }]);
    });

    it('lists the demo tools page by page, each with an object input schema', async () => {
      const tools: LegacyTool[] = [];
      const { names } = await allPages(async (cursor) => {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        tools.push(...page.tools);
        return page;
      });
      expect([...names].sort()).toEqual(DEMO_TOOLS);
      for (const tool of tools) expect(tool.inputSchema.type).toBe('object');
    });

    it('answers a forged cursor with -32602', async () => {
      const error: unknown = await client.listTools({ cursor: 'not-a-cursor' }).catch((caught: unknown) => caught);
      expect(errorCodeOf(error)).toBe(ErrorCodes.InvalidParams);
    });

    it('returns structured content with its JSON text beside it', async () => {
      const result = await client.callTool({ name: 'calculate', arguments: { expression: '(2 + 3) * sqrt(16)' } });
      expect(result.isError ?? false).toBe(false);
      expect(result.structuredContent).toEqual({ expression: '(2 + 3) * sqrt(16)', result: 20 });
      expect(JSON.parse(toolResultText(result))).toEqual(result.structuredContent);
    });

    it('hashes a text (a second tool, through the same session)', async () => {
      const result = await client.callTool({ name: 'hash_text', arguments: { text: 'abc' } });
      expect(result.structuredContent).toEqual({ algorithm: 'sha256', hex: SHA256_OF_ABC });
    });

    it('reports invalid arguments as a tool error with isError, not a protocol error', async () => {
      const missing = await client.callTool({ name: 'calculate', arguments: {} });
      const wrongType = await client.callTool({ name: 'hash_text', arguments: { text: 42 } });
      expect(missing.isError).toBe(true);
      expect(wrongType.isError).toBe(true);
      expect(toolResultText(missing)).not.toBe('');
    });

    it('answers an unknown tool with the JSON-RPC error -32602', async () => {
      const error: unknown = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((caught: unknown) => caught);
      expect(errorCodeOf(error)).toBe(ErrorCodes.InvalidParams);
    });

    it('streams progress notifications for the call that asked for them', async () => {
      const progress: { progress: number; total?: number }[] = [];
      const result = await client.callTool({ name: 'long_operation', arguments: { seconds: 0.6, steps: 3 } }, undefined, {
        onprogress: (update) => progress.push(update),
      });
      expect(result.structuredContent).toEqual({ seconds: 0.6, steps: 3 });
      expect(progress.map((update) => update.progress)).toEqual([1, 2, 3]);
      expect(progress.every((update) => update.total === 3)).toBe(true);
    });

    it('echoes a string progress token verbatim (raw HTTP, S-264)', async () => {
      const session = await openLegacySession(urls.demo, undefined, undefined, auth);
      const token = 'tök-en/✓ 1';
      const answer = await sendRaw({
        url: urls.demo,
        headers: session.headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'long_operation', arguments: { seconds: 0.2, steps: 2 }, _meta: { progressToken: token } },
        }),
      });
      expect(answer.status).toBe(200);
      expect(answer.contentType).toContain('text/event-stream');
      const notifications = sseMessages(answer.body).filter((message) => (message as { method?: string }).method === 'notifications/progress');
      expect(notifications).toHaveLength(2);
      for (const notification of notifications) expect((notification as { params: { progressToken: unknown } }).params.progressToken).toBe(token);
    });

    it('sends log notifications at or above the level set with logging/setLevel', async () => {
      const logClient = legacyClient();
      const logTransport = new LegacyTransport(new URL(urls.conformance));
      await logClient.connect(logTransport);
      const messages: { level: string }[] = [];
      logClient.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
        messages.push(notification.params);
      });
      try {
        await logClient.setLoggingLevel('debug');
        await logClient.callTool({ name: 'test_tool_with_logging', arguments: {} });
        expect(messages.length).toBeGreaterThanOrEqual(3);
        messages.length = 0;
        await logClient.setLoggingLevel('error');
        await logClient.callTool({ name: 'test_tool_with_logging', arguments: {} });
        expect(messages).toEqual([]);
      } finally {
        await logTransport.terminateSession().catch(() => undefined);
        await logClient.close();
      }
    });

    it('cancels a running long_operation with notifications/cancelled, and the executor is told', async () => {
      const watch = await watchCancellations(platform);
      try {
        const controller = new AbortController();
        const started = Date.now();
        const call = client.callTool({ name: 'long_operation', arguments: { seconds: 30, steps: 60 } }, undefined, {
          signal: controller.signal,
          onprogress: () => controller.abort('e2e cancels'),
        });
        await expect(call).rejects.toThrow();
        expect(Date.now() - started).toBeLessThan(10_000);
        // The cancellation names a call of THIS session (the SDK numbers its requests from 0), so no other
        // session or platform on the same bus can satisfy the check.
        const sessionId = transport.sessionId as string;
        const ours = new Set(Array.from({ length: 1_000 }, (_, requestId) => legacyCallId(sessionId, requestId)));
        const cancelledCallIds = () => watch.seen().map((packet) => (JSON.parse(packet) as { data?: { callId?: string } }).data?.callId);
        await waitUntil(async () => cancelledCallIds().some((callId) => callId !== undefined && ours.has(callId)), {
          timeoutMs: 5_000,
          description: "callCancelled for this session's call on the bus",
        });
      } finally {
        await watch.stop();
      }
    });
  });

  describe('modern client (@modelcontextprotocol/client 2.x, pinned to 2026-07-28)', () => {
    let client: ModernClient;

    beforeAll(async () => {
      client = modernClient();
      await client.connect(new ModernTransport(new URL(urls.demo), { requestInit: { headers: auth } }));
    });

    afterAll(async () => {
      await client?.close();
    });

    it('discovers the server with server/discover and speaks 2026-07-28', () => {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN_PROTOCOL_VERSION);
      expect(client.getDiscoverResult()?.capabilities).toMatchObject({ tools: expect.any(Object) });
    });

    it('lists the demo tools, page by page and aggregated', async () => {
      const { names } = await allPages((cursor) => client.listTools(cursor === undefined ? {} : { cursor }));
      expect([...names].sort()).toEqual(DEMO_TOOLS);
      const aggregated = await client.listTools();
      expect(aggregated.tools.map((tool) => tool.name).sort()).toEqual(DEMO_TOOLS);
    });

    it('returns structured content', async () => {
      const result = await client.callTool({ name: 'calculate', arguments: { expression: '2 ^ 10' } });
      expect(result.structuredContent).toEqual({ expression: '2 ^ 10', result: 1024 });
    });

    it('returns text statistics for a text', async () => {
      const result = await client.callTool({ name: 'text_statistics', arguments: { text: 'One two. Three!' } });
      expect(result.structuredContent).toMatchObject({ words: 3, sentences: 2 });
    });

    it('reports invalid arguments as a tool error with isError', async () => {
      const result = await client.callTool({ name: 'generate_uuid', arguments: { count: 1000 } });
      expect(result.isError).toBe(true);
    });

    it('answers an unknown tool with the JSON-RPC error -32602', async () => {
      const error: unknown = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((caught: unknown) => caught);
      expect(errorCodeOf(error)).toBe(ErrorCodes.InvalidParams);
    });

    it('streams progress notifications with the token echoed', async () => {
      const progress: number[] = [];
      const result = await client.callTool(
        { name: 'long_operation', arguments: { seconds: 0.6, steps: 3 } },
        { onprogress: (update) => progress.push(update.progress) },
      );
      expect(result.structuredContent).toEqual({ seconds: 0.6, steps: 3 });
      expect(progress).toEqual([1, 2, 3]);
    });

    it('sends log notifications only for a request carrying a logLevel (S-235)', async () => {
      const logClient = modernClient();
      await logClient.connect(new ModernTransport(new URL(urls.conformance)));
      const messages: unknown[] = [];
      logClient.setNotificationHandler('notifications/message', (notification) => {
        messages.push(notification.params);
      });
      try {
        await logClient.callTool({ name: 'test_tool_with_logging', arguments: {}, _meta: { [META_KEYS.logLevel]: 'debug' } });
        expect(messages.length).toBeGreaterThanOrEqual(3);
        messages.length = 0;
        await logClient.callTool({ name: 'test_tool_with_logging', arguments: {} });
        expect(messages).toEqual([]);
      } finally {
        await logClient.close();
      }
    });

    it('cancels a running long_operation by closing its stream, and the executor is told', async () => {
      const watch = await watchCancellations(platform);
      try {
        const controller = new AbortController();
        const started = Date.now();
        const call = client.callTool(
          { name: 'long_operation', arguments: { seconds: 30, steps: 60 } },
          { signal: controller.signal, onprogress: () => controller.abort('e2e cancels') },
        );
        await expect(call).rejects.toThrow();
        expect(Date.now() - started).toBeLessThan(10_000);
        // A modern call's id is random (no session); the reason says the stream closing cancelled it.
        await waitUntil(
          async () =>
            watch.seen().some((packet) => {
              const data = (JSON.parse(packet) as { data?: { callId?: string; reason?: string } }).data;
              return data?.callId?.startsWith('m-') === true && /stream/.test(data.reason ?? '');
            }),
          { timeoutMs: 5_000, description: 'callCancelled for a modern call on the bus' },
        );
      } finally {
        await watch.stop();
      }
    });
  });

  describe('resources, prompts and completion from the resource store, on the public conformance/everything server', () => {
    const clients: Array<[string, () => Promise<{ client: ResourceStoreClient; notFound: number; close: () => Promise<void> }>]> = [
      [
        'legacy client',
        async () => {
          const client = legacyClient();
          const transport = new LegacyTransport(new URL(urls.conformance));
          await client.connect(transport);
          // spec S-209: the legacy era's own not-found code.
          return { client, notFound: -32002, close: async () => (await transport.terminateSession().catch(() => undefined), await client.close()) };
        },
      ],
      [
        'modern client',
        async () => {
          const client = modernClient();
          await client.connect(new ModernTransport(new URL(urls.conformance)));
          // spec S-210: never -32002 in the modern era.
          return { client, notFound: ErrorCodes.InvalidParams, close: () => client.close() };
        },
      ],
    ];

    describe.each(clients)('%s', (_name, open) => {
      let client: ResourceStoreClient;
      let notFound: number;
      let close: () => Promise<void>;

      beforeAll(async () => {
        ({ client, notFound, close } = await open());
      });
      afterAll(async () => {
        await close?.();
      });

      it('lists the resources and the template', async () => {
        const { resources } = await client.listResources();
        expect(resources.map((resource) => resource.uri)).toEqual(expect.arrayContaining(['test://static-text', 'test://static-binary']));
        const { resourceTemplates } = await client.listResourceTemplates();
        expect(resourceTemplates.map((template) => template.uriTemplate)).toContain('test://template/{id}/data');
      });

      it('reads a text resource, a binary one (base64) and a URI the template matches', async () => {
        const text = await client.readResource({ uri: 'test://static-text' });
        expect(text.contents).toEqual([expect.objectContaining({ uri: 'test://static-text', text: 'This is the content of the static text resource.' })]);
        const binary = await client.readResource({ uri: 'test://static-binary' });
        const blob = (binary.contents[0] as { blob?: string }).blob ?? '';
        expect(binary.contents[0]).toMatchObject({ mimeType: 'image/png' });
        expect([...Buffer.from(blob, 'base64').subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
        const templated = await client.readResource({ uri: 'test://template/42/data' });
        expect(JSON.parse((templated.contents[0] as { text?: string }).text ?? '')).toMatchObject({ id: '42', templateTest: true });
      });

      it("answers an unknown resource with the era's not-found code", async () => {
        const error: unknown = await client.readResource({ uri: 'test://no-such-resource' }).catch((caught: unknown) => caught);
        expect(errorCodeOf(error)).toBe(notFound);
      });

      it('lists prompts and gets one with arguments, refusing a missing argument with -32602', async () => {
        const { prompts } = await client.listPrompts();
        expect(prompts.map((prompt) => prompt.name)).toEqual(
          expect.arrayContaining(['test_simple_prompt', 'test_prompt_with_arguments', 'test_prompt_with_embedded_resource', 'test_prompt_with_image']),
        );
        const prompt = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } });
        expect(prompt.messages).toEqual([
          expect.objectContaining({ role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='a', arg2='b'" } }),
        ]);
        const error: unknown = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a' } }).catch((caught: unknown) => caught);
        expect(errorCodeOf(error)).toBe(ErrorCodes.InvalidParams);
      });

      it('completes a prompt argument and a template variable', async () => {
        const argument = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'test' } });
        expect(argument.completion.values).toEqual(expect.arrayContaining(['test', 'testValue1']));
        expect(argument.completion.values).not.toContain('other');
        const variable = await client.complete({ ref: { type: 'ref/resource', uri: 'test://template/{id}/data' }, argument: { name: 'id', value: '12' } });
        expect(variable.completion.values).toEqual(['123']);
      });
    });
  });

  if (mode.name === 'distributed') {
    describe('two broker processes behind no load balancer', () => {
      it('serves and deletes, through broker B, a legacy session initialized on broker A', async () => {
        const [brokerA, brokerB] = platform.mode === 'distributed' ? platform.brokerUrls : [];
        expect(brokerA).toBeDefined();
        expect(brokerB).toBeDefined();
        expect(brokerB).not.toBe(brokerA);
        const urlA = seededUrls(brokerA ?? '').demo;
        const urlB = seededUrls(brokerB ?? '').demo;

        const clientA = legacyClient();
        // Every replica serves the same canonical MCP URL (PUBLIC_URL), so one token is good at both.
        const transportA = new LegacyTransport(new URL(urlA), { requestInit: { headers: auth } });
        await clientA.connect(transportA);
        const sessionId = transportA.sessionId;
        expect(sessionId).toBeDefined();

        const clientB = legacyClient();
        const transportB = new LegacyTransport(new URL(urlB), { sessionId, requestInit: { headers: auth } });
        await clientB.connect(transportB);
        transportB.setProtocolVersion(transportA.protocolVersion ?? '2025-11-25');

        const progress: number[] = [];
        const result = await clientB.callTool({ name: 'long_operation', arguments: { seconds: 0.4, steps: 2 } }, undefined, {
          onprogress: (update) => progress.push(update.progress),
        });
        expect(result.structuredContent).toEqual({ seconds: 0.4, steps: 2 });
        expect(progress).toEqual([1, 2]);
        expect((await clientB.callTool({ name: 'hash_text', arguments: { text: 'abc' } })).structuredContent).toMatchObject({ hex: SHA256_OF_ABC });

        await transportB.terminateSession();
        expect(transportB.sessionId).toBeUndefined();

        // spec S-93: after DELETE, every replica answers 404 for the session.
        const ping = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' });
        const headers = {
          ...auth,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId ?? '',
          'mcp-protocol-version': '2025-11-25',
        };
        const onA = await sendRaw({ url: urlA, headers, body: ping });
        const onB = await sendRaw({ url: urlB, headers, body: ping });
        expect(onA.status).toBe(404);
        expect(onB.status).toBe(404);
        await clientA.close();
        await clientB.close();
      });
    });
  }
});
