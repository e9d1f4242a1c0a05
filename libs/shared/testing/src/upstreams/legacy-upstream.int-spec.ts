import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../network/wait-until';
import { type LegacyUpstream, startLegacyUpstream } from './legacy-upstream';
import { CATALOG_TOOL_NAMES } from './upstream-catalog';

const WAIT = { timeoutMs: 5_000, intervalMs: 20 };

type Transport = StreamableHTTPClientTransport | SSEClientTransport;

/** A 1.x client declaring the three client capabilities, answering them as a user and a model would. */
function newClient(): Client {
  const client = new Client({ name: 'fixture-spec', version: '1.0.0' }, { capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} } });
  client.setRequestHandler(ElicitRequestSchema, (request) =>
    request.params.message === 'no?' ? { action: 'decline' } : { action: 'accept', content: { answer: `yes to ${request.params.message}` } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, () => ({ role: 'assistant', model: 'fixture-model', content: { type: 'text', text: 'model says hi' } }));
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///one' }, { uri: 'file:///two' }] }));
  return client;
}

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((block) => block.text ?? '').join('');
}

describe('startLegacyUpstream', () => {
  let upstream: LegacyUpstream;
  const open: Client[] = [];

  async function connect(transport: Transport, client = newClient()): Promise<Client> {
    await client.connect(transport);
    open.push(client);
    return client;
  }

  beforeAll(async () => {
    upstream = await startLegacyUpstream();
  });
  afterEach(async () => {
    await Promise.allSettled(open.splice(0).map((client) => client.close()));
    // A closed 1.x client leaves its session on the server (it sends no DELETE): start each case clean.
    await upstream.dropSessions();
  });
  afterAll(async () => {
    await upstream?.close();
  });

  describe.each([
    { name: 'Streamable HTTP', transport: () => new StreamableHTTPClientTransport(new URL(upstream.url)) },
    { name: 'HTTP+SSE', transport: () => new SSEClientTransport(new URL(upstream.sseUrl)) },
  ])('over $name', ({ transport }) => {
    it('lists the catalog', async () => {
      const client = await connect(transport());
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([...CATALOG_TOOL_NAMES]);
      const { resources } = await client.listResources();
      expect(resources.map((resource) => resource.uri)).toEqual(['memo://one', 'memo://two']);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(['memo://notes/{id}']);
      const { prompts } = await client.listPrompts();
      expect(prompts.map((prompt) => prompt.name)).toEqual(['greet']);
    });

    it('answers echo with text and structured content, and fail with a tool error', async () => {
      const client = await connect(transport());
      const echo = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      expect(textOf(echo)).toBe('echo: hi');
      expect(echo.structuredContent).toEqual({ text: 'hi' });
      const fail = await client.callTool({ name: 'fail', arguments: {} });
      expect(fail.isError).toBe(true);
      expect(textOf(fail)).toBe('failed on purpose');
    });

    it('reports progress of slow when given a progress token', async () => {
      const client = await connect(transport());
      const progress: number[] = [];
      const result = await client.callTool({ name: 'slow', arguments: { steps: 3, stepMs: 10 } }, undefined, {
        onprogress: ({ progress: value }) => progress.push(value),
      });
      expect(textOf(result)).toBe('done after 3 steps');
      // The last progress and the result can reach the 1.x client in one chunk; it runs notification
      // handlers a microtask late, after the result removed the progress handler, and drops that one.
      expect([
        [1, 2],
        [1, 2, 3],
      ]).toContainEqual(progress);
    });

    it('stops slow when the call is cancelled', async () => {
      const client = await connect(transport());
      const before = upstream.slowRuns.length;
      const controller = new AbortController();
      const call = client.callTool({ name: 'slow', arguments: { steps: 100, stepMs: 20 } }, undefined, {
        signal: controller.signal,
        onprogress: ({ progress: value }) => {
          if (value === 2) controller.abort('enough');
        },
      });
      await expect(call).rejects.toThrow();
      await waitUntil(async () => upstream.requests.some((request) => request.method === 'notifications/cancelled'), WAIT);
      const run = await waitUntil(async () => upstream.slowRuns.slice(before).find((entry) => entry.steps === 100), WAIT);
      expect(run).toMatchObject({ cancelled: true });
      expect(run.stepsDone).toBeLessThan(10);
    });

    it('sends log messages, and asks the client for elicitation, sampling and roots', async () => {
      const client = await connect(transport());
      const logs: unknown[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(notification.params));
      expect(textOf(await client.callTool({ name: 'log', arguments: { message: 'note this' } }))).toBe('logged');
      await waitUntil(async () => logs.length > 0, WAIT);
      expect(logs).toEqual([{ level: 'info', data: 'note this' }]);
      expect(textOf(await client.callTool({ name: 'ask', arguments: { question: 'ok?' } }))).toBe('answer: yes to ok?');
      expect(textOf(await client.callTool({ name: 'ask', arguments: { question: 'no?' } }))).toBe('declined');
      expect(textOf(await client.callTool({ name: 'sample', arguments: { prompt: 'hello' } }))).toBe('model says hi');
      expect(textOf(await client.callTool({ name: 'roots', arguments: {} }))).toBe('file:///one, file:///two');
    });

    it('reads resources, completes and gets the prompt', async () => {
      const client = await connect(transport());
      expect(await client.readResource({ uri: 'memo://two' })).toMatchObject({ contents: [{ uri: 'memo://two', text: 'second memo' }] });
      expect(await client.readResource({ uri: 'memo://notes/7' })).toMatchObject({ contents: [{ uri: 'memo://notes/7', text: 'note 7' }] });
      const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } });
      expect(completion.completion.values).toEqual(['Ada', 'Alan']);
      const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
      expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }]);
    });

    it('notifies subscribers only when touch names their resource', async () => {
      const client = await connect(transport());
      const updated: string[] = [];
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updated.push(notification.params.uri));
      await client.subscribeResource({ uri: 'memo://one' });
      expect(await upstream.touch('memo://two')).toBe(0);
      expect(await upstream.touch('memo://one')).toBe(1);
      await waitUntil(async () => updated.length > 0, WAIT);
      expect(updated).toEqual(['memo://one']);
    });
  });

  describe('setToolDescription and addTool', () => {
    it('reach connected clients as tools/list_changed, and new sessions see the change', async () => {
      const streamable = await connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
      const sse = await connect(new SSEClientTransport(new URL(upstream.sseUrl)));
      const changes = { streamable: 0, sse: 0 };
      streamable.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes.streamable += 1));
      sse.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes.sse += 1));
      // The Streamable HTTP client opens its GET stream after initialize; notifications before it would be lost.
      await waitUntil(async () => upstream.requests.filter((request) => request.method === 'notifications/initialized').length >= 2, WAIT);
      await new Promise((resolve) => setTimeout(resolve, 100));

      upstream.setToolDescription('echo', 'Echo, described anew');
      await waitUntil(async () => changes.streamable >= 1 && changes.sse >= 1, WAIT);
      const echo = (await streamable.listTools()).tools.find((tool) => tool.name === 'echo');
      expect(echo?.description).toBe('Echo, described anew');

      upstream.addTool('extra');
      await waitUntil(async () => changes.streamable >= 2 && changes.sse >= 2, WAIT);
      expect(textOf(await sse.callTool({ name: 'extra', arguments: {} }))).toBe('extra called');

      const late = await connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
      const tools = (await late.listTools()).tools;
      expect(tools.map((tool) => tool.name)).toEqual([...CATALOG_TOOL_NAMES, 'extra']);
      expect(tools.find((tool) => tool.name === 'echo')?.description).toBe('Echo, described anew');
      expect(() => upstream.setToolDescription('missing', 'x')).toThrow(/no tool "missing"/);
      expect(() => upstream.addTool('echo')).toThrow(/already has a tool "echo"/);
    });
  });

  describe('dropSessions', () => {
    it('makes a request with an old session id get 404, on both transports', async () => {
      const transport = new StreamableHTTPClientTransport(new URL(upstream.url));
      await connect(transport);
      const sessionId = transport.sessionId ?? '';
      expect(upstream.sessionIds()).toContain(sessionId);
      const ping = (id: string) =>
        fetch(upstream.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        });
      const before = await ping(sessionId);
      expect(before.status).toBe(200);
      await before.body?.cancel();

      await connect(new SSEClientTransport(new URL(upstream.sseUrl)));
      const sseSession = upstream
        .sessionIds()
        .find((id) => id !== sessionId && upstream.requests.some((request) => request.sessionId === id && request.transport === 'sse'));
      await upstream.dropSessions();
      expect(upstream.sessionIds()).toEqual([]);

      const after = await ping(sessionId);
      expect(after.status).toBe(404);
      expect(await after.json()).toMatchObject({ error: { code: -32001 } });
      const sseAfter = await fetch(`${upstream.sseUrl.replace(/\/sse$/, '/messages')}?sessionId=${sseSession ?? 'none'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(sseAfter.status).toBe(404);
      await sseAfter.body?.cancel();
    });

    it('answers 400 to a request without a session id that is not initialize', async () => {
      const response = await fetch(upstream.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(400);
      await response.body?.cancel();
    });
  });

  it('logs the methods it received, with the transport and session', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(upstream.url));
    const client = await connect(transport);
    await client.listTools();
    const mine = upstream.requests.filter((request) => request.sessionId === transport.sessionId);
    expect(mine.map((request) => request.method)).toEqual(['notifications/initialized', 'tools/list']);
    expect(mine[1]).toMatchObject({ transport: 'streamable-http', protocolVersion: expect.any(String) });
    expect(upstream.requests.some((request) => request.method === 'initialize' && request.sessionId === undefined)).toBe(true);
  });
});
