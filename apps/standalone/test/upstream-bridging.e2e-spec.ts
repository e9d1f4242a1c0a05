import {
  Client as ModernClient,
  type ElicitRequest,
  StreamableHTTPClientTransport as ModernTransport,
  type Tool as ModernTool,
} from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CATALOG_TOOL_NAMES,
  type LegacyUpstream,
  mcpUrl,
  MODERN_PROTOCOL_VERSION,
  type ModernUpstream,
  startLegacyUpstream,
  startModernUpstream,
  toolResultText,
  waitUntil,
} from '@mcp-platform/shared-testing';
import { AdminApi, createPublicTenant, PUBLIC_SERVER, publicServer, uniqueTenant } from './admin-api';
import { isResponseBody, isRetry } from './client-routing';
import { adminUserOf, distributedMode, type Platform } from './platforms';

/**
 * The cross-era matrix of issue 15: {legacy client (SDK 1.x), modern client (SDK 2.x, 2026-07-28)} ×
 * {legacy upstream (SDK 1.x, sessions), modern upstream (SDK 2.x, stateless)} × {tool call, progress,
 * cancel, logging, elicitation, sampling, roots, list_changed, resources/updated}, through the
 * distributed platform with two broker replicas: a legacy client's answers to the upstream's requests,
 * and a modern client's retries, are sent to the other replica; a legacy client's `resources/subscribe`
 * goes to the other replica than its GET stream, a modern client's `subscriptions/listen` to one replica,
 * and the upstream's `notifications/resources/updated` reaches it either way (the upstream subscription
 * opens with the first subscriber and closes with the last). Not yet in the matrix: tasks (upstream
 * tasks are not federated yet).
 */

const USER_ANSWER = 'forty-two';
const MODEL_TEXT = 'a sampled answer';
const ROOT = { uri: 'file:///example/project', name: 'project' };
const CAPABILITIES = { elicitation: {}, sampling: {}, roots: {} };
const LOG_LEVEL_META_KEY = 'io.modelcontextprotocol/logLevel';

/** What one client of the matrix does, whatever its era. */
interface MatrixClient {
  call(name: string, args: Record<string, unknown>, options?: { onProgress?: () => void; signal?: AbortSignal; logs?: unknown[] }): Promise<unknown>;
  listTools(): Promise<{ name: string; description?: string }[]>;
  /** How many times the client heard its tools change. */
  toolsChanged(): number;
  /** What the client's user and model were asked, in order. */
  readonly asked: string[];
  /** How many answers (legacy) or retries (modern) went to the other broker replica. */
  sentToOther(): number;
  close(): Promise<void>;
}

/** A 2025-11-25 client answering elicitation, sampling and roots; its answers go to `otherUrl`. */
async function legacyClient(url: string, otherUrl: string): Promise<MatrixClient> {
  const asked: string[] = [];
  let changes = 0;
  let other = 0;
  let logs: unknown[] | undefined;
  const client = new LegacyClient({ name: 'e2e-bridging-legacy', version: '1.0.0' }, { capabilities: CAPABILITIES });
  client.setRequestHandler(ElicitRequestSchema, () => (asked.push('elicitation'), { action: 'accept', content: { answer: USER_ANSWER } }));
  client.setRequestHandler(
    CreateMessageRequestSchema,
    () => (asked.push('sampling'), { role: 'assistant', content: { type: 'text', text: MODEL_TEXT }, model: 'test-model' }),
  );
  client.setRequestHandler(ListRootsRequestSchema, () => (asked.push('roots'), { roots: [ROOT] }));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes += 1));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs?.push(notification.params.data));
  const transport = new LegacyTransport(new URL(url), {
    fetch: (input, init) => {
      if (init?.method !== 'POST' || !isResponseBody(init.body)) return fetch(input, init);
      other += 1;
      return fetch(otherUrl, init);
    },
  });
  await client.connect(transport);
  await client.setLoggingLevel('debug');
  return {
    call: async (name, args, options = {}) => {
      logs = options.logs;
      return client.callTool({ name, arguments: args }, undefined, {
        ...(options.onProgress ? { onprogress: options.onProgress } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    },
    listTools: async () => (await client.listTools()).tools,
    toolsChanged: () => changes,
    asked,
    sentToOther: () => other,
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/** A 2026-07-28 client fulfilling `input_required` rounds; its retries go to `otherUrl`. */
async function modernClient(url: string, otherUrl: string): Promise<MatrixClient> {
  const asked: string[] = [];
  let changes = 0;
  let other = 0;
  let logs: unknown[] | undefined;
  const client = new ModernClient(
    { name: 'e2e-bridging-modern', version: '1.0.0' },
    {
      capabilities: CAPABILITIES,
      versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } },
      listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => void (changes += 1) } },
    },
  );
  client.setRequestHandler(
    'elicitation/create',
    (_request: ElicitRequest) => (asked.push('elicitation'), { action: 'accept', content: { answer: USER_ANSWER } }),
  );
  client.setRequestHandler(
    'sampling/createMessage',
    () => (asked.push('sampling'), { role: 'assistant', content: { type: 'text', text: MODEL_TEXT }, model: 'test-model' }),
  );
  client.setRequestHandler('roots/list', () => (asked.push('roots'), { roots: [ROOT] }));
  client.setNotificationHandler('notifications/message', (notification) => void logs?.push(notification.params.data));
  const transport = new ModernTransport(new URL(url), {
    fetch: (input, init) => {
      if (init?.method !== 'POST' || !isRetry(init.body)) return fetch(input, init);
      other += 1;
      return fetch(otherUrl, init);
    },
  });
  await client.connect(transport);
  return {
    call: async (name, args, options = {}) => {
      logs = options.logs;
      return client.callTool(
        { name, arguments: args, ...(options.logs ? { _meta: { [LOG_LEVEL_META_KEY]: 'debug' } } : {}) },
        {
          ...(options.onProgress ? { onprogress: options.onProgress } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        },
      );
    },
    listTools: async () =>
      ((await client.listTools()).tools as ModernTool[]).map((tool) => ({ name: tool.name, ...(tool.description ? { description: tool.description } : {}) })),
    toolsChanged: () => changes,
    asked,
    sentToOther: () => other,
    close: () => client.close(),
  };
}

/** A 2025-11-25 client subscribed to `uri` (the subscribe sent to `otherUrl`, its GET stream on `url`); resolves its close. */
async function legacySubscriber(url: string, otherUrl: string, uri: string, heard: string[]): Promise<() => Promise<void>> {
  const client = new LegacyClient({ name: 'e2e-subscriber-legacy', version: '1.0.0' });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void heard.push(notification.params.uri));
  const transport = new LegacyTransport(new URL(url), {
    fetch: (input, init) => (typeof init?.body === 'string' && init.body.includes('"resources/subscribe"') ? fetch(otherUrl, init) : fetch(input, init)),
  });
  await client.connect(transport);
  await client.subscribeResource({ uri });
  return async () => {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  };
}

/** A 2026-07-28 client with a `subscriptions/listen` stream for `uri` on `url`; resolves its close. */
async function modernSubscriber(url: string, uri: string, heard: string[]): Promise<() => Promise<void>> {
  const client = new ModernClient({ name: 'e2e-subscriber-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } });
  client.setNotificationHandler('notifications/resources/updated', (notification) => void heard.push(notification.params.uri));
  await client.connect(new ModernTransport(new URL(url)));
  const subscription = await client.listen({ resourceSubscriptions: [uri] });
  return async () => {
    await subscription.close();
    await client.close();
  };
}

type ClientEra = 'legacy' | 'modern';
type UpstreamEra = 'legacy' | 'modern';
const CELLS: [ClientEra, UpstreamEra][] = [
  ['legacy', 'legacy'],
  ['legacy', 'modern'],
  ['modern', 'legacy'],
  ['modern', 'modern'],
];

describe('upstream MCP servers bridged across protocol eras, distributed mode with two broker replicas', () => {
  let platform: Platform;
  let admin: AdminApi;
  let upstreams: { legacy: LegacyUpstream; modern: ModernUpstream };
  let urls: { url: string; otherUrl: string };
  const tenant = uniqueTenant('e2e-bridging');

  beforeAll(async () => {
    upstreams = { legacy: await startLegacyUpstream(), modern: await startModernUpstream() };
    platform = await distributedMode(2).boot({ upstreamAllowedHosts: ['127.0.0.1'] });
    const [brokerA, brokerB] = platform.mode === 'distributed' ? platform.brokerUrls : [platform.baseUrl, platform.baseUrl];
    urls = { url: mcpUrl(brokerA ?? '', tenant, PUBLIC_SERVER), otherUrl: mcpUrl(brokerB ?? '', tenant, PUBLIC_SERVER) };
    admin = await AdminApi.signIn(platform, adminUserOf(platform));
    await createPublicTenant(admin, tenant, 'Bridging (e2e)');
    for (const era of ['legacy', 'modern'] as const) {
      await admin.expect(201, 'PUT', `/tenants/${tenant}/upstreams/${era}`, {
        connection: { transport: 'streamable-http', url: upstreams[era].url },
        policy: 'approve-all',
      });
    }
    const names = (['legacy', 'modern'] as const).flatMap((era) => CATALOG_TOOL_NAMES.map((name) => `${era}__${name}`));
    await admin.expect(200, 'PUT', `/tenants/${tenant}/virtual-servers/${PUBLIC_SERVER}`, publicServer(names));
  });

  afterAll(async () => {
    await platform?.stop();
    await upstreams?.legacy.close();
    await upstreams?.modern.close();
  });

  const open = (era: ClientEra): Promise<MatrixClient> => (era === 'legacy' ? legacyClient(urls.url, urls.otherUrl) : modernClient(urls.url, urls.otherUrl));

  describe.each(CELLS)('%s client, %s upstream', (clientEra, upstreamEra) => {
    let client: MatrixClient;
    const tool = (name: string) => `${upstreamEra}__${name}`;

    beforeAll(async () => {
      client = await open(clientEra);
    });
    afterAll(async () => {
      await client?.close();
    });

    it('calls a tool', async () => {
      expect(toolResultText(await client.call(tool('echo'), { text: `${clientEra} to ${upstreamEra}` }))).toBe(`echo: ${clientEra} to ${upstreamEra}`);
    });

    it("relays the upstream's progress", async () => {
      let progress = 0;
      const result = await client.call(tool('slow'), { steps: 3, stepMs: 50 }, { onProgress: () => void (progress += 1) });
      expect(toolResultText(result)).toBe('done after 3 steps');
      expect(progress).toBeGreaterThanOrEqual(2);
    });

    it('passes a cancellation on to the upstream, which stops the call', async () => {
      const runs = upstreams[upstreamEra].slowRuns.length;
      const controller = new AbortController();
      const call = client.call(tool('slow'), { steps: 100, stepMs: 100 }, { signal: controller.signal, onProgress: () => controller.abort() });
      await expect(call).rejects.toThrow();
      await waitUntil(async () => upstreams[upstreamEra].slowRuns.length > runs, { timeoutMs: 5_000 });
      const run = upstreams[upstreamEra].slowRuns[runs];
      expect(run?.cancelled).toBe(true);
      expect(run?.stepsDone).toBeLessThan(run?.steps ?? 0);
    });

    it("relays the upstream's log messages", async () => {
      const logs: unknown[] = [];
      expect(toolResultText(await client.call(tool('log'), { message: `logged from ${upstreamEra}` }, { logs }))).toBe('logged');
      await waitUntil(async () => logs.length > 0, { timeoutMs: 3_000 });
      expect(logs).toEqual([`logged from ${upstreamEra}`]);
    });

    it.each([
      ['elicitation', 'ask', { question: 'The answer?' }, `answer: ${USER_ANSWER}`],
      ['sampling', 'sample', { prompt: 'Say something' }, MODEL_TEXT],
      ['roots', 'roots', {}, ROOT.uri],
    ])('brings the upstream’s %s request to the client, and the answer back', async (kind, name, args, text) => {
      const before = client.sentToOther();
      const asked = client.asked.length;
      expect(toolResultText(await client.call(tool(name), args))).toBe(text);
      expect(client.asked.slice(asked)).toEqual([kind]);
      // The answer (legacy) or the retry (modern) was served by the other broker replica.
      expect(client.sentToOther()).toBeGreaterThan(before);
    });

    it("tells the client when the upstream's tools change", async () => {
      const description = `echoes, changed for a ${clientEra} client`;
      const before = client.toolsChanged();
      upstreams[upstreamEra].setToolDescription('echo', description);
      await waitUntil(async () => client.toolsChanged() > before, { timeoutMs: 10_000 });
      await waitUntil(async () => (await client.listTools()).find((listed) => listed.name === tool('echo'))?.description === description, { timeoutMs: 5_000 });
    });
  });
  describe.each(['legacy', 'modern'] as const)('upstream prompts, resources and templates to a %s client, through the resource store', (clientEra) => {
    const sdk = async () => {
      if (clientEra === 'legacy') {
        const client = new LegacyClient({ name: 'e2e-bridging-items', version: '1.0.0' });
        const transport = new LegacyTransport(new URL(urls.otherUrl));
        await client.connect(transport);
        return { client, close: async () => (await transport.terminateSession().catch(() => undefined), await client.close()) };
      }
      const client = new ModernClient({ name: 'e2e-bridging-items', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } });
      await client.connect(new ModernTransport(new URL(urls.otherUrl)));
      return { client: client as unknown as LegacyClient, close: () => client.close() };
    };

    it('lists both sources’ prompts under their prefixes, and renders and completes them on their upstreams', async () => {
      const { client, close } = await sdk();
      try {
        const names = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
        expect(names).toEqual(expect.arrayContaining(['legacy__greet', 'modern__greet']));
        for (const era of ['legacy', 'modern']) {
          const rendered = await client.getPrompt({ name: `${era}__greet`, arguments: { name: 'Ada' } });
          expect(rendered.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Hello, Ada!' } }]);
          const completed = await client.complete({ ref: { type: 'ref/prompt', name: `${era}__greet` }, argument: { name: 'name', value: 'A' } });
          expect(completed.completion.values).toEqual(['Ada', 'Alan']);
        }
      } finally {
        await close();
      }
    });

    it('reads an upstream resource and a URI its template matches, from the upstream', async () => {
      const { client, close } = await sdk();
      try {
        const uris = (await client.listResources()).resources.map((resource) => resource.uri);
        expect(uris).toEqual(expect.arrayContaining(['memo://one', 'memo://two']));
        const templates = (await client.listResourceTemplates()).resourceTemplates.map((template) => template.name);
        expect(templates).toEqual(expect.arrayContaining(['legacy__note', 'modern__note']));
        expect((await client.readResource({ uri: 'memo://one' })).contents).toEqual([{ uri: 'memo://one', mimeType: 'text/plain', text: 'first memo' }]);
        expect((await client.readResource({ uri: 'memo://notes/7' })).contents[0]).toMatchObject({ uri: 'memo://notes/7', text: 'note 7' });
      } finally {
        await close();
      }
    });
  });

  it('refuses, and says why, a resource of one source whose URI another source already serves', async () => {
    const listed = async (era: string) =>
      (
        (await admin.expect(200, 'GET', `/tenants/${tenant}/upstreams/${era}/items`)).body as {
          items: Array<{ kind: string; name: string; status: string; reason?: string }>;
        }
      ).items.filter((item) => item.kind === 'resource');
    const both = [...(await listed('legacy')), ...(await listed('modern'))].filter((item) => item.name === 'memo://one');
    expect(both.map((item) => item.status).sort()).toEqual(['approved', 'refused']);
    expect(both.find((item) => item.status === 'refused')?.reason).toMatch(/source/i);
  });

  describe.each(['legacy', 'modern'] as const)('resources/updated of a %s upstream, through an upstream subscription', (upstreamEra) => {
    // A tenant of its own with this one source: memo://one is then this upstream's (no other source claims it).
    const subscribingTenant = uniqueTenant(`e2e-subs-${upstreamEra}`);
    const uri = 'memo://one';
    const subscribedUpstream = (): boolean =>
      upstreamEra === 'legacy' ? upstreams.legacy.subscribedUris().includes(uri) : upstreams.modern.resourceListens().some((uris) => uris.includes(uri));

    beforeAll(async () => {
      await createPublicTenant(admin, subscribingTenant, `Subscriptions to a ${upstreamEra} upstream (e2e)`);
      await admin.expect(201, 'PUT', `/tenants/${subscribingTenant}/upstreams/${upstreamEra}`, {
        connection: { transport: 'streamable-http', url: upstreams[upstreamEra].url },
        policy: 'approve-all',
      });
    });

    it.each(['legacy', 'modern'] as const)('tells a %s client subscribed on one replica, and closes the upstream subscription after it', async (clientEra) => {
      const [brokerA, brokerB] = platform.mode === 'distributed' ? platform.brokerUrls : [platform.baseUrl, platform.baseUrl];
      const url = mcpUrl(brokerA ?? '', subscribingTenant, PUBLIC_SERVER);
      const otherUrl = mcpUrl(brokerB ?? '', subscribingTenant, PUBLIC_SERVER);
      const heard: string[] = [];
      const close = clientEra === 'legacy' ? await legacySubscriber(url, otherUrl, uri, heard) : await modernSubscriber(url, uri, heard);
      try {
        await waitUntil(async () => subscribedUpstream(), { timeoutMs: 10_000 });
        await upstreams[upstreamEra].touch(uri);
        await waitUntil(async () => heard.includes(uri), { timeoutMs: 10_000 });
      } finally {
        await close();
      }
      // The last subscriber is gone: the platform unsubscribes upstream.
      await waitUntil(async () => !subscribedUpstream(), { timeoutMs: 10_000 });
    });
  });

  describe('a kill -9 of the tool executor, which holds the upstream connections, in the middle of a call', () => {
    const tool = (name: string) => `legacy__${name}`;

    it('ends the call in flight with an error within seconds, and serves the next calls once the executor is back, nothing else restarted', async () => {
      if (platform.mode !== 'distributed') throw new Error('this case needs the distributed platform');
      const client = await open('legacy');
      const modern = await open('modern');
      try {
        let killed: Promise<unknown> | undefined;
        let killedAt = 0;
        const call = client.call(
          tool('slow'),
          { steps: 100, stepMs: 100 },
          {
            onProgress: () => {
              killedAt ||= Date.now();
              killed ??= platform.mode === 'distributed' ? platform.signalProcess('tool-executor', 'SIGKILL') : undefined;
            },
          },
        );
        const failure = await call.then(
          () => undefined,
          (error: unknown) => error,
        );
        const seenAfterMs = Date.now() - killedAt;
        await killed;
        expect(failure).toMatchObject({ code: -32603 });
        // Heartbeats: the broker gives a call up after 4 missed ones of 2 s, far before the client's 60 s timeout.
        expect(seenAfterMs).toBeLessThan(20_000);

        await platform.restartProcess('tool-executor');
        // The broker replicas, their sessions and the upstreams were not restarted: the same clients go on.
        expect(toolResultText(await client.call(tool('echo'), { text: 'after the kill' }))).toBe('echo: after the kill');
        expect(toolResultText(await modern.call('modern__echo', { text: 'after the kill' }))).toBe('echo: after the kill');
        expect(toolResultText(await modern.call(tool('ask'), { question: 'Still there?' }))).toBe(`answer: ${USER_ANSWER}`);
      } finally {
        await client.close();
        await modern.close();
      }
    });
  });
});
