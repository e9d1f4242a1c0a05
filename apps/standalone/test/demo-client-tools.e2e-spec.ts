import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MODERN_PROTOCOL_VERSION, obtainToken } from '@mcp-platform/shared-testing';
import { isResponseBody, isRetry } from './client-routing';
import { distributedMode, embeddedMode, type Platform, type PlatformMode, seededUrls } from './platforms';

/** Everything the demo tools may ask of a client, declared by both SDK clients. */
const CAPABILITIES = { elicitation: {}, sampling: {}, roots: {} };
/** The roots the client shares; the second has no name, which the tool must not invent. */
const ROOTS = [{ uri: 'file:///home/user/project', name: 'project' }, { uri: 'file:///tmp/scratch' }];
/** What the client's model answers to any sampling request. */
const SUMMARY = { role: 'assistant', content: { type: 'text', text: 'Cats sleep a lot.' }, model: 'e2e-haiku-1', stopReason: 'endTurn' } as const;
const TEXT = 'Cats sleep for twelve to sixteen hours a day, mostly in short naps, and are most active at dawn and dusk.';

type ElicitAnswer = { action: 'accept'; content: { confirmed: boolean } } | { action: 'decline' | 'cancel' };

/** The user and the model behind a client: each handler records the request it was given, then answers it. */
class ClientSide {
  readonly seen: Array<{ method: string; params: unknown }> = [];
  elicitAnswer: ElicitAnswer = { action: 'accept', content: { confirmed: true } };

  reset(): void {
    this.seen.length = 0;
    this.elicitAnswer = { action: 'accept', content: { confirmed: true } };
  }

  elicit(params: unknown): ElicitAnswer {
    this.seen.push({ method: 'elicitation/create', params });
    return this.elicitAnswer;
  }

  sample(params: unknown): typeof SUMMARY {
    this.seen.push({ method: 'sampling/createMessage', params });
    return SUMMARY;
  }

  listRoots(params: unknown): { roots: typeof ROOTS } {
    this.seen.push({ method: 'roots/list', params });
    return { roots: ROOTS };
  }
}

/** What the tests need of either SDK client. */
interface DemoClient {
  callTool(name: string, args: Record<string, unknown>): Promise<{ isError?: unknown; structuredContent?: unknown } & Record<string, unknown>>;
  /** How many POSTs went to the other broker: the legacy client's answers, the modern client's retries. */
  rerouted(): number;
  close(): Promise<void>;
}

/** Where a client connects, where it sends what follows a server's request, and its bearer header. */
interface Endpoints {
  url: string;
  otherUrl: string;
  headers: Record<string, string>;
}

/** SDK 1.x: the server's requests arrive on the call's stream; the answers are POSTed to the other broker. */
async function openLegacy({ url, otherUrl, headers }: Endpoints, side: ClientSide): Promise<DemoClient> {
  const client = new LegacyClient({ name: 'e2e-demo-legacy', version: '1.0.0' }, { capabilities: CAPABILITIES });
  client.setRequestHandler(ElicitRequestSchema, (request) => side.elicit(request.params));
  client.setRequestHandler(CreateMessageRequestSchema, (request) => side.sample(request.params));
  client.setRequestHandler(ListRootsRequestSchema, (request) => side.listRoots(request.params));
  let rerouted = 0;
  const transport = new LegacyTransport(new URL(url), {
    requestInit: { headers },
    fetch: (input, init) => {
      if (init?.method !== 'POST' || !isResponseBody(init.body)) return fetch(input, init);
      rerouted += 1;
      return fetch(otherUrl, init);
    },
  });
  await client.connect(transport);
  return {
    callTool: (name, args) => client.callTool({ name, arguments: args }),
    rerouted: () => rerouted,
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/** SDK 2.x pinned to 2026-07-28: the server answers `input_required`; the client's retries go to the other broker. */
async function openModern({ url, otherUrl, headers }: Endpoints, side: ClientSide): Promise<DemoClient> {
  const client = new ModernClient(
    { name: 'e2e-demo-modern', version: '1.0.0' },
    { capabilities: CAPABILITIES, versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } },
  );
  client.setRequestHandler('elicitation/create', (request) => side.elicit(request.params));
  client.setRequestHandler('sampling/createMessage', (request) => side.sample(request.params));
  client.setRequestHandler('roots/list', (request) => side.listRoots(request.params));
  let rerouted = 0;
  const transport = new ModernTransport(new URL(url), {
    requestInit: { headers },
    fetch: (input, init) => {
      if (init?.method !== 'POST' || !isRetry(init.body)) return fetch(input, init);
      rerouted += 1;
      return fetch(otherUrl, init);
    },
  });
  await client.connect(transport);
  return {
    callTool: (name, args) => client.callTool({ name, arguments: args }),
    rerouted: () => rerouted,
    close: () => client.close(),
  };
}

const modes: PlatformMode[] = [embeddedMode(), distributedMode(2)];
const clients = [
  { name: 'legacy client (@modelcontextprotocol/sdk 1.x)', open: openLegacy },
  { name: 'modern client (@modelcontextprotocol/client 2.x, 2026-07-28)', open: openModern },
];

describe.each(modes)('demo tools that ask the client mid-call, $name mode', (mode) => {
  let platform: Platform;
  let endpoints: Endpoints;

  beforeAll(async () => {
    platform = await mode.boot();
    const [brokerA, brokerB] = platform.mode === 'distributed' ? platform.brokerUrls : [platform.baseUrl, platform.baseUrl];
    const url = seededUrls(brokerA ?? '').demo;
    // Every broker replica shares one public URL, so the token's audience holds on broker B too.
    const token = await obtainToken({ issuer: platform.issuer, resource: url, scope: 'mcp', user: platform.demoUser });
    endpoints = { url, otherUrl: seededUrls(brokerB ?? '').demo, headers: { authorization: `Bearer ${token.access_token}` } };
  });
  afterAll(async () => {
    await platform?.stop();
  });

  describe.each(clients)('$name', ({ open }) => {
    const side = new ClientSide();
    let client: DemoClient;

    beforeAll(async () => {
      client = await open(endpoints, side);
    });
    beforeEach(() => {
      side.reset();
    });
    afterAll(async () => {
      await client?.close();
    });

    it('confirm_action asks the user through an elicitation form and reports that they confirmed', async () => {
      const before = client.rerouted();
      const result = await client.callTool('confirm_action', { action: 'delete the draft' });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ action: 'delete the draft', response: 'accept', confirmed: true });
      expect(side.seen).toMatchObject([
        {
          method: 'elicitation/create',
          params: {
            message: 'Please confirm: delete the draft',
            requestedSchema: { type: 'object', properties: { confirmed: { type: 'boolean' } }, required: ['confirmed'] },
          },
        },
      ]);
      expect(client.rerouted() - before).toBe(1);
    });

    it('confirm_action reports a declined form as not confirmed', async () => {
      side.elicitAnswer = { action: 'decline' };
      const result = await client.callTool('confirm_action', { action: 'send the invoice' });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ action: 'send the invoice', response: 'decline', confirmed: false });
      expect(side.seen.map(({ method }) => method)).toEqual(['elicitation/create']);
    });

    it("summarize_text samples the client's model with the tool's prompt, preferences and token limit", async () => {
      const before = client.rerouted();
      const result = await client.callTool('summarize_text', { text: TEXT, maxTokens: 64 });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ summary: SUMMARY.content.text, model: SUMMARY.model, stopReason: SUMMARY.stopReason });
      expect(side.seen).toMatchObject([
        {
          method: 'sampling/createMessage',
          params: {
            maxTokens: 64,
            systemPrompt: expect.stringMatching(/summar/i),
            // spec S-332: hints are substrings of model names, in order of preference.
            modelPreferences: { hints: [{ name: 'haiku' }, { name: 'flash' }, { name: 'mini' }] },
            messages: [{ role: 'user', content: { type: 'text', text: expect.stringContaining(TEXT) } }],
          },
        },
      ]);
      expect(client.rerouted() - before).toBe(1);
    });

    it('list_client_roots returns the roots the client declared', async () => {
      const before = client.rerouted();
      const result = await client.callTool('list_client_roots', {});
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ roots: ROOTS });
      expect(side.seen.map(({ method }) => method)).toEqual(['roots/list']);
      expect(client.rerouted() - before).toBe(1);
    });
  });
});
