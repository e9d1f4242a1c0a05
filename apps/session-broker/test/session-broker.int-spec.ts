import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resourceStore, toolExecutor } from '@mcp-platform/protocol-contracts';
import { inProcessMessaging, MessageBus, type MessagingOptions } from '@mcp-platform/shared-messaging';
import { isolatedNatsMessaging } from '@mcp-platform/shared-testing';
import { legacyCallId } from '../src/calls/call-id';
import { McpEndpoint } from '../src/edge/mcp-endpoint.service';
import { VirtualServerAnnouncer } from '../src/startup/virtual-server-announcer.service';
import { ListenStreams } from '../src/subscriptions/listen-streams.registry';
import { LARGE_CONTENT, LARGE_TEXT, ResourceStoreLog, REWRITTEN_CONTENT } from './fake-resource-store';
import { bootBroker, type BootedBroker, ExecutorLog } from './fake-tool-executor';
import { ACCEPT_BOTH, eventually, initializeRaw, MODERN, modernHeaders, modernParams, openStream, post, rawHttp } from './http-helpers';

const run = `sb${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

/**
 * The suite's transports. A test that boots a broker of its own with its own fake executor names an
 * isolation: over NATS both fakes would otherwise share one queue group and take turns at its calls.
 */
const transports: Array<[string, (isolation?: string) => MessagingOptions]> = [
  ['in-process', () => inProcessMessaging()],
  ['nats', (isolation) => isolatedNatsMessaging(`session-broker-test-${run}`, isolation === undefined ? run : `${run}-${isolation}`)],
];

describe.each(transports)('SessionBroker over %s', (_transport, messaging) => {
  let broker: BootedBroker;
  const log = new ExecutorLog();
  const storeLog = new ResourceStoreLog();

  beforeAll(async () => {
    broker = await bootBroker(messaging(), { executor: log, resourceStore: storeLog });
  });
  afterAll(async () => {
    await broker.close();
  });

  describe('VirtualServerAnnouncer', () => {
    it('lists the full MCP URL of every virtual server', async () => {
      await expect(broker.app.get(VirtualServerAnnouncer).announce()).resolves.toEqual([
        'http://127.0.0.1:0/demo/default/mcp',
        'http://127.0.0.1:0/demo/private/mcp',
      ]);
    });
  });

  describe('legacy era with the official SDK 1.x client', () => {
    let client: LegacyClient;
    let transport: LegacyTransport;

    beforeAll(async () => {
      client = new LegacyClient({ name: 'legacy-test', version: '1.0.0' });
      transport = new LegacyTransport(new URL(broker.mcpUrl));
      await client.connect(transport);
    });
    afterAll(async () => {
      await client.close();
    });

    it('initializes with our capabilities, server info and instructions', () => {
      expect(client.getServerCapabilities()).toEqual({
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        completions: {},
        logging: {},
        // spec S-272: a 2025-11-25 session (the SDK's latest) hears of the task methods and task-augmented tools/call.
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        // SEP-2640: skills are served in both eras.
        extensions: { 'io.modelcontextprotocol/skills': { directoryRead: true } },
      });
      expect(client.getServerVersion()).toMatchObject({ name: 'demo/default', title: 'Demo' });
      expect(client.getInstructions()).toBe('Use the echo tool.');
      expect(transport.sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    });

    it('lists and calls tools', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([
        'echo',
        'chatty',
        'wait_for_cancel',
        'crash',
        'hash_text',
        'ask_roots',
        'roots_by_round_trip',
        'complete_elicitation',
        'slow_progress',
      ]);
      await expect(client.callTool({ name: 'echo', arguments: { text: 'hello' } })).resolves.toMatchObject({ content: [{ type: 'text', text: 'hello' }] });
    });

    it('answers ping and logging/setLevel with empty results', async () => {
      await expect(client.ping()).resolves.toEqual({});
      await expect(client.setLoggingLevel('debug')).resolves.toEqual({});
    });

    it('streams progress (token echoed) and log messages on the call stream', async () => {
      await client.setLoggingLevel('debug');
      const messages: unknown[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
        messages.push(notification.params.data);
      });
      const progress: number[] = [];
      const result = await client.callTool({ name: 'chatty', arguments: {} }, undefined, { onprogress: (update) => progress.push(update.progress) });
      expect(result).toMatchObject({ content: [{ text: 'done' }] });
      expect(progress).toEqual([0, 50, 100]);
      expect(messages).toEqual(['step 0', 'step 50', 'step 100']);
    });

    it('answers an unknown tool with -32602 and an internal failure with -32603 and its error id', async () => {
      await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({ code: -32602 });
      await expect(client.callTool({ name: 'crash', arguments: {} })).rejects.toMatchObject({ code: -32603, message: expect.stringMatching(/err-42/) });
    });

    it('sends resources/updated on the GET stream for subscribed URIs only, until unsubscribed (S-205, S-206)', async () => {
      const updated: string[] = [];
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
        updated.push(notification.params.uri);
      });
      await expect(client.subscribeResource({ uri: 'demo://guide' })).resolves.toEqual({});
      // Subscribing twice is one subscription; a URI the store does not know is accepted too.
      await expect(client.subscribeResource({ uri: 'demo://guide' })).resolves.toEqual({});
      await expect(client.subscribeResource({ uri: 'demo://not-yet' })).resolves.toEqual({});
      const bus = broker.app.get(MessageBus);
      // The SDK opens its GET stream after connect; repeat until it is there.
      await eventually(async () => {
        bus.emit(resourceStore.resourceUpdated, { tenant: 'demo', uri: 'demo://guide' });
        await new Promise((resolve) => setTimeout(resolve, 100));
        return updated.length > 0 ? true : undefined;
      });
      updated.length = 0;
      // Not subscribed, another tenant: nothing. Then one the session asked for, as a marker.
      bus.emit(resourceStore.resourceUpdated, { tenant: 'demo', uri: 'demo://logo' });
      bus.emit(resourceStore.resourceUpdated, { tenant: 'other', uri: 'demo://guide' });
      bus.emit(resourceStore.resourceUpdated, { tenant: 'demo', uri: 'demo://guide' });
      await eventually(() => (updated.length > 0 ? true : undefined));
      expect(updated).toEqual(['demo://guide']);

      await expect(client.unsubscribeResource({ uri: 'demo://guide' })).resolves.toEqual({});
      // Unsubscribing from something never subscribed is a no-op success.
      await expect(client.unsubscribeResource({ uri: 'demo://never' })).resolves.toEqual({});
      updated.length = 0;
      bus.emit(resourceStore.resourceUpdated, { tenant: 'demo', uri: 'demo://guide' });
      bus.emit(resourceStore.resourceUpdated, { tenant: 'demo', uri: 'demo://not-yet' });
      await eventually(() => (updated.length > 0 ? true : undefined));
      expect(updated).toEqual(['demo://not-yet']);
      await client.unsubscribeResource({ uri: 'demo://not-yet' });
    });

    it('lists resources page by page and templates, without caching hints', async () => {
      const first = await client.listResources();
      expect(first).toEqual({ resources: [{ uri: 'demo://guide', name: 'guide', mimeType: 'text/markdown' }], nextCursor: 'page-2' });
      const second = await client.listResources({ cursor: 'page-2' });
      expect(second).toEqual({ resources: [{ uri: 'demo://logo', name: 'logo', mimeType: 'image/png' }] });
      await expect(client.listResources({ cursor: 'bogus' })).rejects.toMatchObject({ code: -32602 });
      await expect(client.listResourceTemplates()).resolves.toEqual({
        resourceTemplates: [{ uriTemplate: 'demo://notes/{topic}', name: 'notes', mimeType: 'text/plain' }],
      });
    });

    it('passes the virtual server, whether it is public, and the anonymous principal to the store', async () => {
      storeLog.requests.length = 0;
      await client.listPrompts();
      expect(storeLog.requests).toEqual([{ tenant: 'demo', server: 'default', public: true, principal: expect.objectContaining({ anonymous: true }) }]);
    });

    it('reads text, binary and templated resources', async () => {
      await expect(client.readResource({ uri: 'demo://guide' })).resolves.toEqual({
        contents: [{ uri: 'demo://guide', mimeType: 'text/markdown', text: '# Guide' }],
      });
      await expect(client.readResource({ uri: 'demo://logo' })).resolves.toEqual({
        contents: [{ uri: 'demo://logo', mimeType: 'image/png', blob: 'iVBORw==' }],
      });
      await expect(client.readResource({ uri: 'demo://notes/cats' })).resolves.toMatchObject({ contents: [{ text: 'Notes on cats' }] });
    });

    it('reads resources larger than one bus message, joined from their chunks, starting over once when one changes mid-read', async () => {
      await expect(client.readResource({ uri: 'demo://large' })).resolves.toEqual({
        contents: [{ uri: 'demo://large', mimeType: 'application/octet-stream', blob: LARGE_CONTENT.toString('base64') }],
      });
      await expect(client.readResource({ uri: 'demo://large-text' })).resolves.toEqual({
        contents: [{ uri: 'demo://large-text', mimeType: 'text/markdown', text: LARGE_TEXT }],
      });
      await expect(client.readResource({ uri: 'demo://rewritten' })).resolves.toEqual({
        contents: [{ uri: 'demo://rewritten', mimeType: 'application/octet-stream', blob: REWRITTEN_CONTENT.toString('base64') }],
      });
    });

    it('answers an internal error, never a mix of versions, when a resource keeps changing while it is read in chunks', async () => {
      await expect(client.readResource({ uri: 'demo://unsettled' })).rejects.toMatchObject({ code: -32603 });
    });

    it('answers an unknown resource with -32002 and the uri in data (S-209)', async () => {
      await expect(client.readResource({ uri: 'demo://missing' })).rejects.toMatchObject({ code: -32002, data: { uri: 'demo://missing' } });
    });

    it('lists and gets prompts, refusing an unknown prompt or a missing argument with -32602', async () => {
      const { prompts } = await client.listPrompts();
      expect(prompts).toEqual([{ name: 'greet', description: 'Greets someone', arguments: [{ name: 'who', required: true }] }]);
      await expect(client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } })).resolves.toMatchObject({
        messages: [{ role: 'user', content: { type: 'text', text: 'Say hello to Ada.' } }],
      });
      await expect(client.getPrompt({ name: 'greet' })).rejects.toMatchObject({ code: -32602 });
      await expect(client.getPrompt({ name: 'nope' })).rejects.toMatchObject({ code: -32602 });
    });

    it('completes a prompt argument', async () => {
      await expect(client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'al' } })).resolves.toEqual({
        completion: { values: ['alice', 'albert'], total: 2, hasMore: false },
      });
    });

    it('sends resources and prompts list_changed on the GET stream when the store says so', async () => {
      let resources = 0;
      let prompts = 0;
      client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
        resources++;
      });
      client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
        prompts++;
      });
      const bus = broker.app.get(MessageBus);
      await eventually(async () => {
        bus.emit(resourceStore.listChanged, { tenant: 'demo', servers: [], lists: ['resources', 'prompts'] });
        await new Promise((resolve) => setTimeout(resolve, 100));
        return resources > 0 && prompts > 0 ? true : undefined;
      });
    });

    it('turns notifications/cancelled into callCancelled for the derived call id', async () => {
      const abort = new AbortController();
      const call = client.callTool({ name: 'wait_for_cancel', arguments: {} }, undefined, { signal: abort.signal });
      const started = await eventually(() => log.calls.find((candidate) => candidate.name === 'wait_for_cancel'));
      abort.abort('user gave up');
      await expect(call).rejects.toThrow();
      await eventually(() => (log.cancelled.includes(started.callId) ? true : undefined));
      expect(started.callId).toMatch(/^l-/);
      expect(started.notify?.route).toBeTruthy();
    });

    it('sends tools/list_changed on the GET stream when the catalog changes', async () => {
      let changed = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        changed++;
      });
      const bus = broker.app.get(MessageBus);
      await eventually(async () => {
        bus.emit(toolExecutor.catalogChanged, { tenant: 'demo', servers: ['default'] });
        await new Promise((resolve) => setTimeout(resolve, 100));
        return changed > 0 ? true : undefined;
      });
    });
  });

  describe('legacy session lifecycle over raw HTTP', () => {
    it('accepts any legacy MCP-Protocol-Version we serve, not only the negotiated one', async () => {
      const sessionId = await initializeRaw(broker.mcpUrl, '2025-11-25');
      const answer = await post(
        broker.mcpUrl,
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-03-26' },
      );
      expect(answer.status).toBe(200);
    });

    it('answers 400 for an unsupported MCP-Protocol-Version and for a missing session id', async () => {
      const sessionId = await initializeRaw(broker.mcpUrl);
      const badVersion = await post(
        broker.mcpUrl,
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { 'mcp-session-id': sessionId, 'mcp-protocol-version': '1999-01-01' },
      );
      expect(badVersion.status).toBe(400);
      expect(badVersion.messages[0]).toMatchObject({ id: 1, error: { code: -32600 } });
      const noSession = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
      expect(noSession.status).toBe(400);
      expect(noSession.messages[0]).toMatchObject({ id: 2, error: { code: -32600 } });
    });

    it('answers 404 for an unknown session and for a session after DELETE', async () => {
      const unknown = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': 'A'.repeat(32) });
      expect(unknown.status).toBe(404);
      const sessionId = await initializeRaw(broker.mcpUrl);
      const deleted = await fetch(broker.mcpUrl, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
      expect(deleted.status).toBe(200);
      const after = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 3, method: 'ping' }, { 'mcp-session-id': sessionId });
      expect(after.status).toBe(404);
      expect(after.messages[0]).toMatchObject({ id: 3, error: { code: -32600, message: 'Session not found' } });
    });

    it('answers 202 to notifications and client responses', async () => {
      const sessionId = await initializeRaw(broker.mcpUrl);
      const notification = await post(broker.mcpUrl, { jsonrpc: '2.0', method: 'notifications/roots/list_changed' }, { 'mcp-session-id': sessionId });
      expect(notification.status).toBe(202);
      expect(notification.text).toBe('');
      const clientResponse = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 'srv-1', result: {} }, { 'mcp-session-id': sessionId });
      expect(clientResponse.status).toBe(202);
    });

    it('answers application/json when no notification precedes the result, SSE otherwise, echoing a string progress token', async () => {
      const sessionId = await initializeRaw(broker.mcpUrl);
      const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
      const plain = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } }, headers);
      expect(plain.headers.get('content-type')).toBe('application/json');
      const streamed = await post(
        broker.mcpUrl,
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'chatty', arguments: {}, _meta: { progressToken: 'tok-1' } } },
        headers,
      );
      expect(streamed.headers.get('content-type')).toBe('text/event-stream');
      expect(streamed.messages).toEqual([
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok-1', progress: 0, total: 100 } },
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok-1', progress: 50, total: 100 } },
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok-1', progress: 100, total: 100 } },
        { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'done' }] } },
      ]);
    });

    it('refuses a malformed subscription uri with -32602 and the 1,001st subscription of a session', async () => {
      const sessionId = await initializeRaw(broker.mcpUrl);
      const headers = { 'mcp-session-id': sessionId };
      for (const params of [{}, { uri: 42 }, { uri: 'no scheme' }, { uri: `demo://${'x'.repeat(2_048)}` }]) {
        for (const method of ['resources/subscribe', 'resources/unsubscribe']) {
          const answer = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 1, method, params }, headers);
          expect(answer.messages[0], `${method} ${JSON.stringify(params).slice(0, 40)}`).toMatchObject({ id: 1, error: { code: -32602 } });
        }
      }
      for (let batch = 0; batch < 10; batch++) {
        const answers = await Promise.all(
          Array.from({ length: 100 }, (_, index) =>
            post(broker.mcpUrl, { jsonrpc: '2.0', id: index, method: 'resources/subscribe', params: { uri: `demo://bulk/${batch * 100 + index}` } }, headers),
          ),
        );
        for (const answer of answers) expect(answer.messages[0]).toMatchObject({ result: {} });
      }
      const refused = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'demo://one-too-many' } }, headers);
      expect(refused.messages[0]).toMatchObject({ id: 2, error: { code: -32602, message: expect.stringMatching(/1000/) } });
      // One already held is still fine, and unsubscribing makes room.
      await expect(
        post(broker.mcpUrl, { jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'demo://bulk/5' } }, headers),
      ).resolves.toMatchObject({ messages: [{ result: {} }] });
      await post(broker.mcpUrl, { jsonrpc: '2.0', id: 4, method: 'resources/unsubscribe', params: { uri: 'demo://bulk/5' } }, headers);
      await expect(
        post(broker.mcpUrl, { jsonrpc: '2.0', id: 5, method: 'resources/subscribe', params: { uri: 'demo://one-too-many' } }, headers),
      ).resolves.toMatchObject({ messages: [{ result: {} }] });
    });

    it('does not cancel a legacy call when its POST connection drops (S-85)', async () => {
      const sessionId = await initializeRaw(broker.mcpUrl);
      const abort = new AbortController();
      const pending = fetch(broker.mcpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-session-id': sessionId },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'keep', method: 'tools/call', params: { name: 'wait_for_cancel', arguments: {} } }),
        signal: abort.signal,
      }).catch(() => undefined);
      const callId = legacyCallId(sessionId, 'keep');
      await eventually(() => log.calls.find((call) => call.callId === callId));
      abort.abort();
      await pending;
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(log.cancelled).not.toContain(callId);
      // The explicit cancellation still works, from any request of the session.
      await post(broker.mcpUrl, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'keep' } }, { 'mcp-session-id': sessionId });
      await eventually(() => (log.cancelled.includes(callId) ? true : undefined));
    });
  });

  describe('modern era with the official 2.x client', () => {
    let client: ModernClient;

    beforeAll(async () => {
      client = new ModernClient({ name: 'modern-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
      await client.connect(new ModernTransport(new URL(broker.mcpUrl)));
    });
    afterAll(async () => {
      await client.close();
    });

    it('negotiates 2026-07-28 through server/discover', () => {
      expect(client.getServerVersion()).toMatchObject({ name: 'demo/default' });
      expect(client.getInstructions()).toBe('Use the echo tool.');
    });

    it('lists and calls tools', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('echo');
      await expect(client.callTool({ name: 'echo', arguments: { text: 'modern' } })).resolves.toMatchObject({ content: [{ type: 'text', text: 'modern' }] });
    });

    it('answers an unknown tool with -32602', async () => {
      await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    });

    it('lists and reads resources, gets prompts and completes', async () => {
      // The 2.x client follows nextCursor itself.
      await expect(client.listResources()).resolves.toMatchObject({ resources: [{ uri: 'demo://guide' }, { uri: 'demo://logo' }] });
      await expect(client.listResourceTemplates()).resolves.toMatchObject({ resourceTemplates: [{ uriTemplate: 'demo://notes/{topic}' }] });
      await expect(client.readResource({ uri: 'demo://logo' })).resolves.toMatchObject({ contents: [{ uri: 'demo://logo', blob: 'iVBORw==' }] });
      await expect(client.readResource({ uri: 'demo://notes/dogs' })).resolves.toMatchObject({ contents: [{ text: 'Notes on dogs' }] });
      await expect(client.listPrompts()).resolves.toMatchObject({ prompts: [{ name: 'greet' }] });
      await expect(client.getPrompt({ name: 'greet', arguments: { who: 'Bo' } })).resolves.toMatchObject({
        messages: [{ content: { text: 'Say hello to Bo.' } }],
      });
      await expect(client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'b' } })).resolves.toMatchObject({
        completion: { values: ['bob'] },
      });
    });

    it('reads a resource larger than one bus message, joined from its chunks, with the caching hints of the first answer', async () => {
      await expect(client.readResource({ uri: 'demo://large' })).resolves.toMatchObject({
        contents: [{ uri: 'demo://large', mimeType: 'application/octet-stream', blob: LARGE_CONTENT.toString('base64') }],
        ttlMs: 15_000,
        cacheScope: 'public',
      });
      await expect(client.readResource({ uri: 'demo://rewritten' })).resolves.toMatchObject({ contents: [{ blob: REWRITTEN_CONTENT.toString('base64') }] });
    });

    it('answers an unknown resource with -32602, never -32002 (S-210)', async () => {
      await expect(client.readResource({ uri: 'demo://missing' })).rejects.toMatchObject({ code: -32602 });
    });

    it('listens with subscriptions/listen: the honoured filter, then only the notifications asked for (S-308, S-309)', async () => {
      const updated: string[] = [];
      const changed: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (notification) => {
        updated.push(notification.params.uri);
      });
      for (const list of ['tools', 'resources', 'prompts'] as const) {
        client.setNotificationHandler(`notifications/${list}/list_changed`, () => {
          changed.push(list);
        });
      }
      const subscription = await client.listen({ promptsListChanged: true, resourceSubscriptions: ['demo://guide'] });
      expect(subscription.honoredFilter).toEqual({ promptsListChanged: true, resourceSubscriptions: ['demo://guide'] });
      expect(broker.app.get(ListenStreams).size).toBe(1);

      const bus = broker.app.get(MessageBus);
      bus.emit(toolExecutor.catalogChanged, { tenant: 'demo', servers: [] });
      bus.emit(resourceStore.resourceUpdated, { tenant: 'demo', uri: 'demo://logo' });
      bus.emit(resourceStore.listChanged, { tenant: 'demo', servers: ['default'], lists: ['resources'] });
      bus.emit(resourceStore.resourceUpdated, { tenant: 'demo', uri: 'demo://guide' });
      bus.emit(resourceStore.listChanged, { tenant: 'demo', servers: ['default'], lists: ['prompts'] });
      await eventually(() => (changed.includes('prompts') ? true : undefined));
      expect(updated).toEqual(['demo://guide']);
      expect(changed).toEqual(['prompts']);

      await subscription.close();
      await expect(subscription.closed).resolves.toBe('local');
      await eventually(() => (broker.app.get(ListenStreams).size === 0 ? true : undefined));
    });
  });

  describe('modern era over raw HTTP', () => {
    it('answers server/discover with versions, capabilities, caching hints, resultType and serverInfo, and no session id', async () => {
      const answer = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'server/discover', params: modernParams() }, modernHeaders('server/discover'));
      expect(answer.status).toBe(200);
      expect(answer.headers.get('mcp-session-id')).toBeNull();
      expect(answer.messages[0]).toEqual({
        jsonrpc: '2.0',
        id: 1,
        result: {
          supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
          capabilities: {
            tools: { listChanged: true },
            resources: { subscribe: true, listChanged: true },
            prompts: { listChanged: true },
            completions: {},
            logging: {},
            extensions: { 'io.modelcontextprotocol/tasks': {}, 'io.modelcontextprotocol/skills': { directoryRead: true } },
          },
          instructions: 'Use the echo tool.',
          ttlMs: 60_000,
          cacheScope: 'public',
          resultType: 'complete',
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'demo/default', version: '0.1.0', title: 'Demo' } },
        },
      });
    });

    it('refuses a subscriptions/listen whose filter is malformed with -32602, holding no stream', async () => {
      const tooMany = Array.from({ length: 1_001 }, (_, index) => `demo://r/${index}`);
      for (const params of [
        {},
        { notifications: 'all' },
        { notifications: { toolsListChanged: 'yes' } },
        { notifications: { resourceSubscriptions: ['not a uri'] } },
        { notifications: { resourceSubscriptions: tooMany } },
      ]) {
        const answer = await post(
          broker.mcpUrl,
          { jsonrpc: '2.0', id: 5, method: 'subscriptions/listen', params: modernParams(params) },
          modernHeaders('subscriptions/listen'),
        );
        expect(answer.messages[0], JSON.stringify(params).slice(0, 80)).toMatchObject({
          id: 5,
          error: { code: -32602, message: expect.stringMatching(/^Invalid params: /) },
        });
      }
      expect(broker.app.get(ListenStreams).size).toBe(0);
    });

    it('puts ttlMs and cacheScope on tools/list', async () => {
      const answer = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: modernParams() }, modernHeaders('tools/list'));
      expect(answer.messages[0]).toMatchObject({ result: { ttlMs: 30_000, cacheScope: 'public', resultType: 'complete' } });
    });

    it("puts the store's ttlMs and cacheScope on resource and prompt lists and on reads (S-214, S-218)", async () => {
      for (const method of ['resources/list', 'resources/templates/list', 'prompts/list']) {
        const answer = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 1, method, params: modernParams() }, modernHeaders(method));
        expect(answer.messages[0], method).toMatchObject({ result: { ttlMs: 15_000, cacheScope: 'public', resultType: 'complete' } });
      }
      const read = await post(
        broker.mcpUrl,
        { jsonrpc: '2.0', id: 2, method: 'resources/read', params: modernParams({ uri: 'demo://guide' }) },
        modernHeaders('resources/read', 'demo://guide'),
      );
      expect(read.messages[0]).toMatchObject({ result: { contents: [{ text: '# Guide' }], ttlMs: 15_000, cacheScope: 'public', resultType: 'complete' } });
      const prompt = await post(
        broker.mcpUrl,
        { jsonrpc: '2.0', id: 3, method: 'prompts/get', params: modernParams({ name: 'greet', arguments: { who: 'Al' } }) },
        modernHeaders('prompts/get', 'greet'),
      );
      expect(prompt.messages[0]).toMatchObject({ result: { messages: [{ role: 'user' }], resultType: 'complete' } });
    });

    it('answers an unknown resource with -32602 and the uri in data', async () => {
      const answer = await post(
        broker.mcpUrl,
        { jsonrpc: '2.0', id: 1, method: 'resources/read', params: modernParams({ uri: 'demo://gone' }) },
        modernHeaders('resources/read', 'demo://gone'),
      );
      expect(answer.messages[0]).toMatchObject({ id: 1, error: { code: -32602, data: { uri: 'demo://gone' } } });
    });

    it('requires Mcp-Name to mirror the uri of resources/read and the name of prompts/get (S-113)', async () => {
      const missing = await post(
        broker.mcpUrl,
        { jsonrpc: '2.0', id: 1, method: 'resources/read', params: modernParams({ uri: 'demo://guide' }) },
        modernHeaders('resources/read'),
      );
      expect(missing.status).toBe(400);
      expect(missing.messages[0]).toMatchObject({ id: 1, error: { code: -32020 } });
      const other = await post(
        broker.mcpUrl,
        { jsonrpc: '2.0', id: 2, method: 'prompts/get', params: modernParams({ name: 'greet' }) },
        modernHeaders('prompts/get', 'other'),
      );
      expect(other.status).toBe(400);
      expect(other.messages[0]).toMatchObject({ id: 2, error: { code: -32020 } });
    });

    it('refuses malformed prompt and completion params with -32602 before asking the store', async () => {
      const args = await post(
        broker.mcpUrl,
        { jsonrpc: '2.0', id: 1, method: 'prompts/get', params: modernParams({ name: 'greet', arguments: { who: 7 } }) },
        modernHeaders('prompts/get', 'greet'),
      );
      expect(args.messages[0]).toMatchObject({ id: 1, error: { code: -32602 } });
      const ref = await post(
        broker.mcpUrl,
        { jsonrpc: '2.0', id: 2, method: 'completion/complete', params: modernParams({ ref: { type: 'ref/tool' }, argument: { name: 'x', value: '' } }) },
        modernHeaders('completion/complete'),
      );
      expect(ref.messages[0]).toMatchObject({ id: 2, error: { code: -32602 } });
    });

    it('refuses a request without the _meta envelope with 400 and -32602', async () => {
      const answer = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, modernHeaders('tools/list'));
      expect(answer.status).toBe(400);
      expect(answer.messages[0]).toMatchObject({ id: 1, error: { code: -32602 } });
    });

    it('refuses missing or mismatched headers with 400 and -32020', async () => {
      const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: modernParams({ name: 'echo', arguments: {} }) };
      const cases: Array<Record<string, string>> = [
        { 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
        { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
        { 'mcp-protocol-version': MODERN, 'mcp-name': 'echo' },
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list', 'mcp-name': 'echo' },
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call' },
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'other' },
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': '=?base64?!!!?=' },
      ];
      for (const headers of cases) {
        const answer = await post(broker.mcpUrl, body, headers);
        expect(answer.status, JSON.stringify(headers)).toBe(400);
        expect(answer.messages[0], JSON.stringify(headers)).toMatchObject({ id: 1, error: { code: -32020 } });
      }
    });

    it('decodes a Base64 sentinel Mcp-Name before comparing', async () => {
      const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: modernParams({ name: 'echo', arguments: { text: 'b64' } }) };
      const answer = await post(broker.mcpUrl, body, modernHeaders('tools/call', `=?base64?${Buffer.from('echo').toString('base64')}?=`));
      expect(answer.status).toBe(200);
      expect(answer.messages[0]).toMatchObject({ result: { content: [{ text: 'b64' }], resultType: 'complete' } });
    });

    it('answers an unsupported version with 400, -32022, supported and requested', async () => {
      const params = modernParams({}, { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' });
      const answer = await post(
        broker.mcpUrl,
        { jsonrpc: '2.0', id: 9, method: 'tools/list', params },
        { ...modernHeaders('tools/list'), 'mcp-protocol-version': '2099-01-01' },
      );
      expect(answer.status).toBe(400);
      expect(answer.messages[0]).toMatchObject({
        id: 9,
        error: { code: -32022, data: { supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'], requested: '2099-01-01' } },
      });
    });

    it('answers an unknown method (ping, setLevel included) with 404 and -32601', async () => {
      for (const method of ['ping', 'logging/setLevel', 'resources/subscribe', 'nope/nope']) {
        const answer = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 1, method, params: modernParams() }, modernHeaders(method));
        expect(answer.status, method).toBe(404);
        expect(answer.messages[0], method).toMatchObject({ id: 1, error: { code: -32601 } });
      }
    });

    it('refuses an unknown per-request log level with -32602', async () => {
      const params = modernParams({ name: 'echo' }, { 'io.modelcontextprotocol/logLevel': 'loud' });
      const answer = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/call', params }, modernHeaders('tools/call', 'echo'));
      expect(answer.status).toBe(400);
      expect(answer.messages[0]).toMatchObject({ error: { code: -32602 } });
    });

    it('streams progress and the log messages at the requested level, with X-Accel-Buffering: no', async () => {
      const params = modernParams({ name: 'chatty', arguments: {} }, { progressToken: 7, 'io.modelcontextprotocol/logLevel': 'info' });
      const answer = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/call', params }, modernHeaders('tools/call', 'chatty'));
      expect(answer.headers.get('content-type')).toBe('text/event-stream');
      expect(answer.headers.get('x-accel-buffering')).toBe('no');
      const methods = answer.messages.map((message) => (message as { method?: string }).method ?? 'result');
      expect(methods).toEqual([
        'notifications/progress',
        'notifications/message',
        'notifications/progress',
        'notifications/message',
        'notifications/progress',
        'notifications/message',
        'result',
      ]);
      expect(answer.messages[0]).toMatchObject({ params: { progressToken: 7, progress: 0 } });
    });

    it('sends no log messages when the request names no level (S-34)', async () => {
      const params = modernParams({ name: 'chatty', arguments: {} });
      const answer = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/call', params }, modernHeaders('tools/call', 'chatty'));
      expect(answer.headers.get('content-type')).toBe('application/json');
      expect(log.calls.at(-1)?.notify).toEqual({ route: expect.any(String) });
    });

    it('cancels the call when the client closes the response stream (S-108)', async () => {
      const abort = new AbortController();
      const params = modernParams({ name: 'wait_for_cancel', arguments: {} });
      const pending = fetch(broker.mcpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...modernHeaders('tools/call', 'wait_for_cancel') },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
        signal: abort.signal,
      }).catch(() => undefined);
      const before = log.calls.length;
      const started = await eventually(() => log.calls.slice(before).find((call) => call.name === 'wait_for_cancel'));
      expect(started.callId).toMatch(/^m-/);
      abort.abort();
      await pending;
      await eventually(() => (log.cancelled.includes(started.callId) ? true : undefined));
    });

    it('answers GET and DELETE without a session id with 405', async () => {
      for (const method of ['GET', 'DELETE']) {
        const response = await fetch(broker.mcpUrl, { method, headers: { accept: 'text/event-stream' } });
        expect(response.status, method).toBe(405);
        await expect(response.json()).resolves.toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      }
    });
  });

  describe('edge', () => {
    it('refuses a foreign Host and a foreign Origin with 403 (DNS rebinding), and serves the right ones', async () => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      });
      const base = { 'content-type': 'application/json', accept: ACCEPT_BOTH };
      const evil = await rawHttp(broker.mcpUrl, { method: 'POST', headers: { ...base, host: 'evil.example.com', origin: 'http://evil.example.com' }, body });
      expect(evil.status).toBe(403);
      expect(JSON.parse(evil.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      const host = new URL(broker.mcpUrl).host;
      const good = await rawHttp(broker.mcpUrl, { method: 'POST', headers: { ...base, host, origin: `http://${host}` }, body });
      expect(good.status).toBe(200);
      const badOrigin = await post(broker.mcpUrl, JSON.parse(body), { origin: 'http://evil.example.com' });
      expect(badOrigin.status).toBe(403);
    });

    it('answers a CORS preflight of an allowed origin with the methods and headers a browser client needs, and refuses another origin (403)', async () => {
      const preflight = await fetch(broker.mcpUrl, {
        method: 'OPTIONS',
        headers: {
          origin: 'http://localhost:5173',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, mcp-param-region',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
      expect(preflight.headers.get('vary')).toBe('Origin');
      expect(preflight.headers.get('access-control-allow-methods')).toBe('POST, GET, DELETE');
      expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-session-id');
      expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-param-region');
      expect(Number(preflight.headers.get('access-control-max-age'))).toBeGreaterThan(0);
      const foreign = await fetch(broker.mcpUrl, {
        method: 'OPTIONS',
        headers: { origin: 'http://evil.example.com', 'access-control-request-method': 'POST' },
      });
      expect(foreign.status).toBe(403);
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
      const plain = await fetch(broker.mcpUrl, { method: 'OPTIONS' });
      expect(plain.status).toBe(204);
      expect(plain.headers.get('allow')).toBe('POST, GET, DELETE, OPTIONS');
    });

    it('lets an allowed origin read every answer, the edge refusals included, with the headers a client needs exposed', async () => {
      const origin = 'http://localhost:5173';
      const initialized = await post(
        broker.mcpUrl,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'browser', version: '1' } },
        },
        { origin },
      );
      const missing = await post(`${broker.url}/demo/missing/mcp`, { jsonrpc: '2.0', id: 1, method: 'ping' }, { origin });
      const notAcceptable = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'ping' }, { origin, accept: 'application/json' });
      const noSession = await fetch(broker.mcpUrl, { method: 'GET', headers: { origin, accept: 'text/event-stream' } });
      for (const [answer, status] of [
        [initialized, 200],
        [missing, 404],
        [notAcceptable, 406],
        [noSession, 405],
      ] as const) {
        expect(answer.status).toBe(status);
        expect(answer.headers.get('access-control-allow-origin'), String(status)).toBe(origin);
        expect(answer.headers.get('access-control-expose-headers'), String(status)).toBe(
          'mcp-session-id, www-authenticate, mcp-protocol-version, last-event-id',
        );
      }
    });

    it('refuses a POST that does not accept both response modes with 406', async () => {
      const answer = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'ping' }, { accept: 'application/json' });
      expect(answer.status).toBe(406);
      expect(answer.messages[0]).toMatchObject({ error: { code: -32600 } });
    });

    it('refuses a body over the limit with 413 and a non-JSON content type with 415', async () => {
      const big = await post(broker.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(100_000) } });
      expect(big.status).toBe(413);
      expect(big.messages[0]).toMatchObject({ error: { code: -32600 } });
      const text = await post(broker.mcpUrl, 'hello', { 'content-type': 'text/plain' });
      expect(text.status).toBe(415);
    });

    it('answers broken JSON with -32700 and non-requests with -32600, echoing a readable id', async () => {
      const broken = await post(broker.mcpUrl, '{"jsonrpc": "2.0", "id": 1,');
      expect(broken.status).toBe(400);
      expect(broken.messages[0]).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: expect.any(String) } });
      const cases: Array<[unknown, unknown]> = [
        [[{ jsonrpc: '2.0', id: 1, method: 'ping' }], undefined],
        [{ jsonrpc: '2.0', id: null, method: 'ping' }, undefined],
        [{ jsonrpc: '1.0', id: 4, method: 'ping' }, 4],
        [{ id: 5, method: 'ping' }, 5],
        [{ jsonrpc: '2.0', id: 6, method: 17 }, 6],
        [{ jsonrpc: '2.0', id: 'x', method: 'ping', params: 'no' }, 'x'],
      ];
      for (const [body, id] of cases) {
        const answer = await post(broker.mcpUrl, body);
        expect(answer.status, JSON.stringify(body)).toBe(400);
        expect(answer.messages[0], JSON.stringify(body)).toEqual({
          jsonrpc: '2.0',
          ...(id === undefined ? {} : { id }),
          error: { code: -32600, message: expect.any(String) },
        });
      }
    });

    it('answers an unknown virtual server with 404 and a JSON-RPC body', async () => {
      const answer = await post(`${broker.url}/demo/missing/mcp`, { jsonrpc: '2.0', id: 1, method: 'ping' });
      expect(answer.status).toBe(404);
      expect(answer.messages[0]).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    });

    it('survives a thousand hostile requests, each answered with a 4xx and a JSON-RPC body', async () => {
      const sessionId = await initializeRaw(broker.mcpUrl);
      const bodies: Array<{ body: string; headers?: Record<string, string> }> = [];
      const values: unknown[] = [null, true, 0, -1, 1.5, 1e308, '', 'x'.repeat(300), [], {}, { a: 1 }, [1, 2]];
      for (const id of values) for (const method of values) bodies.push({ body: JSON.stringify({ jsonrpc: '2.0', id, method }) });
      for (const value of values) bodies.push({ body: JSON.stringify(value) });
      for (let cut = 1; cut < 60; cut++)
        bodies.push({ body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } }).slice(0, cut) });
      for (const id of values) {
        bodies.push({
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: id, arguments: id } }),
          headers: { 'mcp-session-id': sessionId },
        });
        bodies.push({
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: id } }),
          headers: { 'mcp-session-id': sessionId },
        });
        bodies.push({
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: id } }),
          headers: { 'mcp-session-id': sessionId },
        });
        bodies.push({
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: modernParams({}, { 'io.modelcontextprotocol/protocolVersion': id }) }),
          headers: modernHeaders('tools/list'),
        });
        bodies.push({
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: modernParams({ name: id }) }),
          headers: modernHeaders('tools/call', String(id).slice(0, 20)),
        });
      }
      for (let index = 0; bodies.length < 1_000; index++) {
        bodies.push({
          body: JSON.stringify({ jsonrpc: '2.0', id: index, method: 'ping' }),
          headers: { 'mcp-session-id': `bogus-${index}-${'z'.repeat(index % 40)}` },
        });
      }
      let served = 0;
      for (const { body, headers } of bodies) {
        const answer = await post(broker.mcpUrl, body, headers);
        if (answer.status === 200) {
          served++;
          expect(answer.messages[0], body).toMatchObject({ jsonrpc: '2.0' });
          continue;
        }
        expect(answer.status, body).toBeGreaterThanOrEqual(400);
        expect(answer.status, body).toBeLessThan(500);
        expect(answer.messages[0], body).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number), message: expect.any(String) } });
      }
      expect(served).toBeLessThan(bodies.length);
      await expect(post(broker.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': sessionId })).resolves.toMatchObject({ status: 200 });
    });
  });

  describe('shutdown', () => {
    it('drains: refuses new work with 503, takes a client’s notifications, and ends a call still running at the deadline with a JSON-RPC error, cancelling it', async () => {
      const executor = new ExecutorLog();
      const own = await bootBroker(messaging('drain'), { executor });
      try {
        // 2025-06-18: no priming event, so the call's answer stays plain JSON and nothing can resume it.
        const sessionId = await initializeRaw(own.mcpUrl, '2025-06-18');
        const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
        const call = post(own.mcpUrl, { jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'wait_for_cancel' } }, session);
        await eventually(() => (executor.calls.some((request) => request.name === 'wait_for_cancel') ? true : undefined));
        const drained = own.app.get(McpEndpoint).onDrain(Date.now() + 400);
        const refused = await post(own.mcpUrl, { jsonrpc: '2.0', id: 'late', method: 'ping' }, session);
        expect(refused.status).toBe(503);
        expect(refused.headers.get('retry-after')).toBe('1');
        expect(refused.messages[0]).toEqual({
          jsonrpc: '2.0',
          id: 'late',
          error: { code: -32603, message: 'Service Unavailable: this server is shutting down; retry the request' },
        });
        const notified = await post(own.mcpUrl, { jsonrpc: '2.0', method: 'notifications/roots/list_changed' }, session);
        expect(notified.status).toBe(202);
        await drained;
        const ended = await call;
        expect(ended.status).toBe(503);
        expect(ended.messages[0]).toEqual({
          jsonrpc: '2.0',
          id: 'slow',
          error: { code: -32603, message: 'Service Unavailable: the server shut down before the request finished; retry it' },
        });
        await eventually(() => (executor.cancelled.includes(legacyCallId(sessionId, 'slow')) ? true : undefined));
      } finally {
        await own.close();
      }
    });

    it('ends every listen subscription with its result, so clients see a graceful end (S-313)', async () => {
      const own = await bootBroker(messaging('listen-shutdown'), { executor: new ExecutorLog() });
      const client = new ModernClient({ name: 'shutdown-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
      await client.connect(new ModernTransport(new URL(own.mcpUrl)));
      const subscription = await client.listen({ toolsListChanged: true });
      const raw = await openStream(own.mcpUrl, {
        method: 'POST',
        headers: modernHeaders('subscriptions/listen'),
        body: { jsonrpc: '2.0', id: 77, method: 'subscriptions/listen', params: modernParams({ notifications: {} }) },
      });
      await eventually(() => (own.app.get(ListenStreams).size === 2 ? true : undefined));
      await own.close();
      await expect(subscription.closed).resolves.toBe('graceful');
      await raw.ended;
      expect(raw.messages()).toEqual([
        {
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: { notifications: {}, _meta: { 'io.modelcontextprotocol/subscriptionId': 77 } },
        },
        {
          jsonrpc: '2.0',
          id: 77,
          result: {
            resultType: 'complete',
            _meta: {
              'io.modelcontextprotocol/subscriptionId': 77,
              'io.modelcontextprotocol/serverInfo': { name: 'demo/default', version: '0.1.0', title: 'Demo' },
            },
          },
        },
      ]);
      await client.close();
    });
  });
});
