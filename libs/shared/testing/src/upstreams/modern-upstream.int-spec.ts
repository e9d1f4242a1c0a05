import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../network/wait-until';
import { type ModernUpstream, startModernUpstream } from './modern-upstream';
import { CATALOG_TOOL_NAMES } from './upstream-catalog';

const WAIT = { timeoutMs: 5_000, intervalMs: 20 };
const MODERN = '2026-07-28';

/** A 2.x client pinned to 2026-07-28, answering elicitation, sampling and roots (multi round-trip, fulfilled by the SDK). */
function newClient(): Client {
  const client = new Client(
    { name: 'fixture-spec', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} }, versionNegotiation: { mode: { pin: MODERN } } },
  );
  client.setRequestHandler('elicitation/create', (request) =>
    request.params.message === 'no?' ? { action: 'decline' } : { action: 'accept', content: { answer: `yes to ${request.params.message}` } },
  );
  client.setRequestHandler('sampling/createMessage', () => ({ role: 'assistant', model: 'fixture-model', content: { type: 'text', text: 'model says hi' } }));
  client.setRequestHandler('roots/list', () => ({ roots: [{ uri: 'file:///one' }, { uri: 'file:///two' }] }));
  return client;
}

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((block) => block.text ?? '').join('');
}

describe('startModernUpstream', () => {
  let upstream: ModernUpstream;
  const open: { close(): Promise<void> }[] = [];

  async function connect(client = newClient()): Promise<Client> {
    await client.connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
    open.push(client);
    return client;
  }

  beforeAll(async () => {
    upstream = await startModernUpstream();
  });
  afterEach(async () => {
    await Promise.allSettled(open.splice(0).map((closable) => closable.close()));
  });
  afterAll(async () => {
    await upstream?.close();
  });

  it('answers server/discover and lists the catalog', async () => {
    const client = await connect();
    expect(client.getServerVersion()).toMatchObject({ name: 'fixture-upstream' });
    expect(upstream.requests.map((request) => request.method)).toContain('server/discover');
    expect(upstream.requests.map((request) => request.method)).not.toContain('initialize');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...CATALOG_TOOL_NAMES]);
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(['memo://one', 'memo://two']);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(['memo://notes/{id}']);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['greet']);
    expect(upstream.requests.filter((request) => request.method === 'tools/list').at(-1)).toMatchObject({ protocolVersion: MODERN });
  });

  it('answers echo with text and structured content, and fail with a tool error', async () => {
    const client = await connect();
    const echo = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(textOf(echo)).toBe('echo: hi');
    expect(echo.structuredContent).toEqual({ text: 'hi' });
    const fail = await client.callTool({ name: 'fail', arguments: {} });
    expect(fail.isError).toBe(true);
    expect(textOf(fail)).toBe('failed on purpose');
  });

  it('reports progress of slow when given a progress token', async () => {
    const client = await connect();
    const progress: number[] = [];
    const result = await client.callTool({ name: 'slow', arguments: { steps: 3, stepMs: 10 } }, { onprogress: ({ progress: value }) => progress.push(value) });
    expect(textOf(result)).toBe('done after 3 steps');
    expect(upstream.slowRuns.at(-1)).toEqual({ steps: 3, stepsDone: 3, cancelled: false });
    // The 2.x client may also run a notification handler after the result settles (see the legacy spec).
    expect([
      [1, 2],
      [1, 2, 3],
    ]).toContainEqual(progress);
  });

  it('stops slow when the call is cancelled', async () => {
    const client = await connect();
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'slow', arguments: { steps: 100, stepMs: 20 } },
      {
        signal: controller.signal,
        onprogress: ({ progress: value }) => {
          if (value === 2) controller.abort('enough');
        },
      },
    );
    await expect(call).rejects.toThrow();
    const run = await waitUntil(async () => upstream.slowRuns.find((entry) => entry.steps === 100), WAIT);
    expect(run).toMatchObject({ cancelled: true });
    expect(run.stepsDone).toBeLessThan(10);
  });

  it('sends log messages, and gets elicitation, sampling and roots by multi round-trip', async () => {
    const client = await connect();
    const calls = () => upstream.requests.filter((request) => request.method === 'tools/call').length;
    const before = calls();
    const logs: unknown[] = [];
    client.setNotificationHandler('notifications/message', (notification) => void logs.push(notification.params));
    expect(textOf(await client.callTool({ name: 'log', arguments: { message: 'note this' } }))).toBe('logged');
    await waitUntil(async () => logs.length > 0, WAIT);
    expect(logs).toEqual([{ level: 'info', data: 'note this' }]);
    expect(textOf(await client.callTool({ name: 'ask', arguments: { question: 'ok?' } }))).toBe('answer: yes to ok?');
    expect(textOf(await client.callTool({ name: 'ask', arguments: { question: 'no?' } }))).toBe('declined');
    expect(textOf(await client.callTool({ name: 'sample', arguments: { prompt: 'hello' } }))).toBe('model says hi');
    expect(textOf(await client.callTool({ name: 'roots', arguments: {} }))).toBe('file:///one, file:///two');
    // log once; each of the other four calls twice: answered input_required, then the client's retry.
    expect(calls() - before).toBe(1 + 2 * 4);
  });

  it('reads resources, completes and gets the prompt', async () => {
    const client = await connect();
    expect(await client.readResource({ uri: 'memo://two' })).toMatchObject({ contents: [{ uri: 'memo://two', text: 'second memo' }] });
    expect(await client.readResource({ uri: 'memo://notes/7' })).toMatchObject({ contents: [{ uri: 'memo://notes/7', text: 'note 7' }] });
    const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } });
    expect(completion.completion.values).toEqual(['Ada', 'Alan']);
    const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }]);
  });

  it('delivers setToolDescription, addTool and touch on subscriptions/listen streams', async () => {
    const client = await connect();
    const events: string[] = [];
    client.setNotificationHandler('notifications/tools/list_changed', () => void events.push('tools'));
    client.setNotificationHandler('notifications/resources/updated', (notification) => void events.push(notification.params.uri));
    const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['memo://one'] });
    open.push(subscription);
    expect(upstream.requests.map((request) => request.method)).toContain('subscriptions/listen');

    upstream.setToolDescription('echo', 'Echo, described anew');
    await waitUntil(async () => events.includes('tools'), WAIT);
    const echo = (await client.listTools(undefined, { cacheMode: 'refresh' })).tools.find((tool) => tool.name === 'echo');
    expect(echo?.description).toBe('Echo, described anew');

    upstream.addTool('extra');
    await waitUntil(async () => events.filter((event) => event === 'tools').length >= 2, WAIT);
    expect(textOf(await client.callTool({ name: 'extra', arguments: {} }))).toBe('extra called');

    upstream.touch('memo://two');
    upstream.touch('memo://one');
    await waitUntil(async () => events.includes('memo://one'), WAIT);
    expect(events).not.toContain('memo://two');
  });

  describe('with legacy: stateless', () => {
    let stateless: ModernUpstream;
    beforeAll(async () => {
      stateless = await startModernUpstream({ legacy: 'stateless' });
    });
    afterAll(async () => {
      await stateless?.close();
    });

    it('serves a 2025 client without sessions, and says so for the tools that need the modern era', async () => {
      const client = new LegacyClient({ name: 'fixture-spec', version: '1.0.0' }, { capabilities: { elicitation: {} } });
      const transport = new LegacyTransport(new URL(stateless.url));
      await client.connect(transport);
      open.push(client);
      expect(transport.sessionId).toBeUndefined();
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'old' } }))).toBe('echo: old');
      const ask = await client.callTool({ name: 'ask', arguments: { question: 'ok?' } });
      expect(ask.isError).toBe(true);
      expect(stateless.requests.map((request) => request.method)).toContain('initialize');
    });
  });

  it('rejects 2025-era requests by default', async () => {
    const response = await fetch(upstream.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
      }),
    });
    const answer = (await response.json()) as { error?: { code: number } };
    expect(answer.error).toBeDefined();
  });
});
