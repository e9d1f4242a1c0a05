import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventPayload, type Principal, sessionBroker, toolExecutor, WireErrorCode } from '@mcp-platform/protocol-contracts';
import { REQUIRED_SCOPES_META_KEY } from '@mcp-platform/protocol-mcp';
import { EventLog, MessageBus, type MessagingOptions, NATS_CONNECTION, RpcError } from '@mcp-platform/shared-messaging';
import type { DatabaseOptions } from '@mcp-platform/shared-persistence';
import { bootService, serviceSetups, toolResultText } from '@mcp-platform/shared-testing';
import { ToolExecutorModule } from '../src';
import { CatalogRepository } from '../src/catalog/catalog.repository';
import { CatalogService } from '../src/catalog/catalog.service';
import { resultOf } from './executor-calls';

const run = `te${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

type CallMessage = EventPayload<typeof sessionBroker.callMessage>;
type CatalogChanged = EventPayload<typeof toolExecutor.catalogChanged>;

/** A signed-in caller of `tenant` holding `scopes` (what the broker puts in the headers). */
const member = (tenant: string, scopes: string[] = ['mcp']): Principal => ({
  subject: `user-of-${tenant}`,
  tenant,
  clientId: 'test-client',
  scopes,
  anonymous: false,
});
/** The anonymous caller of a public server of `tenant`. */
const anonymous = (tenant: string): Principal => ({ subject: 'anonymous', tenant, scopes: [], anonymous: true });
/** Request options carrying the principal. */
const as = (principal: Principal) => ({ context: { principal } });

/** The progress test_tool_with_progress reports at `progress`, echoing the request's token. */
const fixtureProgress = (progressToken: string | number, progress: number) => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` },
});

/** A fresh stream key shaped like the broker's (two segments of letters and digits). */
const streamKey = () => `t${randomUUID().replaceAll('-', '')}.c${randomUUID().replaceAll('-', '')}`;

/** Both setups; the distributed one allows private networks, the embedded one keeps the default refusal. */
const setups = serviceSetups('tool-executor', run).map((setup) => ({ ...setup, allowPrivateNetworks: setup.name === 'NATS + PostgreSQL' }));

function boot(messaging: MessagingOptions, database: DatabaseOptions, allowPrivateNetworks: boolean): Promise<INestApplication> {
  return bootService(messaging, ToolExecutorModule.register({ database, seed: true, http: { allowPrivateNetworks, timeoutMs: 5_000 } }));
}

describe.each(setups)('ToolExecutorModule over $name', (setup) => {
  let app: INestApplication;
  let bus: MessageBus;
  let eventLog: EventLog;
  let drop: (() => Promise<void>) | undefined;
  let endpoint: Server;
  let endpointUrl: string;

  const call = (name: string, args?: Record<string, unknown>, extra: Partial<Parameters<MessageBus['request']>[1]> = {}) =>
    resultOf(
      bus.request(
        toolExecutor.callTool,
        {
          tenant: 'conformance',
          server: 'everything',
          callId: randomUUID(),
          name,
          ...(args === undefined ? {} : { arguments: args }),
          protocolVersion: '2025-11-25',
          ...extra,
        } as never,
        as(anonymous('conformance')),
      ),
    );

  /** tools/call of `server` in `tenant` as `principal`. */
  const callAs = (principal: Principal, tenant: string, server: string, name: string, args: Record<string, unknown> = {}) =>
    resultOf(bus.request(toolExecutor.callTool, { tenant, server, callId: randomUUID(), name, arguments: args, protocolVersion: '2025-11-25' }, as(principal)));
  /** Names on the first tools/list page of `server` in `tenant` as `principal`, with the page's cache scope. */
  const listAs = async (principal: Principal, tenant: string, server: string) => {
    const page = await bus.request(toolExecutor.listTools, { tenant, server }, as(principal));
    return { names: page.tools.map((tool) => tool.name), cacheScope: page.cacheScope };
  };
  /** Collects catalogChanged events of one tenant until `stop`. */
  const watchCatalog = async (tenant: string) => {
    const events: CatalogChanged[] = [];
    const subscription = bus.subscribe(toolExecutor.catalogChanged, (payload) => {
      if (payload.tenant === tenant) events.push(payload);
    });
    await bus.flush();
    return { events, stop: () => subscription.unsubscribe() };
  };

  beforeAll(async () => {
    const database = await setup.database();
    drop = database.drop;
    app = await boot(setup.messaging(), database.options, setup.allowPrivateNetworks);
    bus = app.get(MessageBus);
    eventLog = app.get(EventLog);
    endpoint = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        response.setHeader('content-type', 'application/json');
        const apiKey = request.headers['x-api-key'];
        response.end(JSON.stringify({ echoed: JSON.parse(body) as unknown, ...(apiKey === undefined ? {} : { apiKey }) }));
      });
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/tool`;
  });

  afterAll(async () => {
    try {
      await new Promise((resolve) => endpoint?.close(resolve));
      const connection = app?.get<NatsConnection | null>(NATS_CONNECTION);
      // The run's JetStream streams (events, task runs) would otherwise outlive it (their messages expire or get worked, the streams do not).
      if (connection) {
        const jsm = await connection.jetstreamManager();
        for (const stream of [`${run}-MCP_EVENTS`, `${run}-MCP_WORK`]) await jsm.streams.delete(stream).catch(() => false);
      }
      await app?.close();
    } finally {
      await drop?.();
    }
  });

  describe('virtual servers', () => {
    it('lists the seeded servers', async () => {
      const { servers } = await bus.request(toolExecutor.listVirtualServers, {});
      expect(servers).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ tenant: 'demo', name: 'default', public: false }),
          expect.objectContaining({ tenant: 'conformance', name: 'everything', public: true }),
        ]),
      );
    });

    it('gets one server, and NOT_FOUND for an unknown one', async () => {
      await expect(bus.request(toolExecutor.getVirtualServer, { tenant: 'demo', server: 'default' })).resolves.toMatchObject({ title: 'Demo tools' });
      await expect(bus.request(toolExecutor.getVirtualServer, { tenant: 'demo', server: 'nope' })).rejects.toMatchObject({ code: WireErrorCode.NotFound });
    });
  });

  describe('listTools', () => {
    it('lists the conformance fixtures by name, each with a description, with caching hints', async () => {
      const page = await bus.request(toolExecutor.listTools, { tenant: 'conformance', server: 'everything' }, as(anonymous('conformance')));
      const names = page.tools.map((tool) => tool.name);
      expect(names).toEqual([...names].sort());
      expect(names).toEqual(
        expect.arrayContaining(['test_simple_text', 'test_image_content', 'test_audio_content', 'test_tool_with_progress', 'json_schema_2020_12_tool']),
      );
      for (const tool of page.tools) expect(tool.description).toBeTruthy();
      expect(page).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
      expect(page.nextCursor).toBeUndefined();
      const schemaTool = page.tools.find((tool) => tool.name === 'json_schema_2020_12_tool');
      expect(schemaTool?.inputSchema).toMatchObject({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $defs: { address: { type: 'object' } },
        additionalProperties: false,
      });
    });

    it('answers INVALID_PARAMS to a cursor it did not mint', async () => {
      await expect(
        bus.request(toolExecutor.listTools, { tenant: 'conformance', server: 'everything', cursor: 'bogus!' }, as(anonymous('conformance'))),
      ).rejects.toMatchObject({
        code: WireErrorCode.InvalidParams,
      });
    });

    it('pages through more than 100 tools and reloads on catalogChanged', async () => {
      const repository = app.get(CatalogRepository);
      await repository.ensureTenant('paging');
      const names = Array.from({ length: 105 }, (_, index) => `tool_${String(index).padStart(3, '0')}`);
      for (const name of names) {
        await repository.saveTool('paging', {
          name,
          description: `Tool ${name}`,
          inputSchema: { type: 'object' },
          kind: 'builtin',
          config: { handler: 'conformance.test_simple_text' },
          timeoutMs: 5_000,
          enabled: true,
          requiredScopes: [],
          taskSupport: 'forbidden',
        });
      }
      await repository.saveVirtualServer('paging', { name: 'big', public: false }, names);
      bus.emit(toolExecutor.catalogChanged, { tenant: 'paging', servers: ['big'] });
      await expect
        .poll(() => bus.request(toolExecutor.getVirtualServer, { tenant: 'paging', server: 'big' }).catch(() => undefined), { timeout: 5_000 })
        .toBeDefined();
      const first = await bus.request(toolExecutor.listTools, { tenant: 'paging', server: 'big' }, as(member('paging')));
      expect(first.tools).toHaveLength(100);
      expect(first.nextCursor).toBeDefined();
      const second = await bus.request(toolExecutor.listTools, { tenant: 'paging', server: 'big', cursor: first.nextCursor }, as(member('paging')));
      expect(second.tools.map((tool) => tool.name)).toEqual(names.slice(100));
      expect(second.nextCursor).toBeUndefined();
    });
  });

  describe('callTool', () => {
    it('answers test_simple_text when arguments are absent', async () => {
      const result = await call('test_simple_text');
      expect(result.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
    });

    it('returns every media fixture in the shape the suite checks', async () => {
      const image = await call('test_image_content', {});
      expect(image.content[0]).toMatchObject({ type: 'image', mimeType: 'image/png', data: expect.stringMatching(/^iVBORw0KGgo/) });
      const audio = await call('test_audio_content', {});
      expect(audio.content[0]).toMatchObject({ type: 'audio', mimeType: 'audio/wav', data: expect.stringMatching(/^UklGR/) });
      const embedded = await call('test_embedded_resource', {});
      expect(embedded.content[0]).toEqual({
        type: 'resource',
        resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
      });
      const mixed = await call('test_multiple_content_types', {});
      expect(mixed.content.map((block) => block.type)).toEqual(['text', 'image', 'resource']);
    });

    it('returns test_error_handling as an error result, not a protocol error', async () => {
      const result = await call('test_error_handling', {});
      expect(result.isError).toBe(true);
      expect(toolResultText(result)).toBeTruthy();
    });

    it('answers INVALID_PARAMS for an unknown tool', async () => {
      const error = (await call('no_such_tool', {}).catch((caught: unknown) => caught)) as RpcError;
      expect(error).toMatchObject({ code: WireErrorCode.InvalidParams, message: 'Unknown tool: no_such_tool' });
    });

    it('answers invalid arguments with an actionable error result', async () => {
      const result = await call('json_schema_2020_12_tool', { name: 'x', surprise: true });
      expect(result.isError).toBe(true);
      expect(toolResultText(result)).toContain('unexpected property "surprise"');
    });

    it('adds the JSON text block to structured results and validates them', async () => {
      const result = await resultOf(
        bus.request(
          toolExecutor.callTool,
          { tenant: 'demo', server: 'default', callId: randomUUID(), name: 'calculate', arguments: { expression: '6 * 7' }, protocolVersion: '2025-11-25' },
          as(member('demo')),
        ),
      );
      expect(result.structuredContent).toEqual({ expression: '6 * 7', result: 42 });
      expect(JSON.parse(toolResultText(result))).toEqual({ expression: '6 * 7', result: 42 });
    });

    it('relays strictly increasing progress on the caller route, in order', async () => {
      const route = `route-${randomUUID().slice(0, 8)}`;
      const received: CallMessage[] = [];
      const subscription = bus.subscribe(sessionBroker.callMessage, (payload) => received.push(payload), { route });
      await bus.flush();
      try {
        await call('test_tool_with_progress', {}, { notify: { route, progressToken: 'p-1' } });
        await expect.poll(() => received.length, { timeout: 2_000 }).toBe(3);
        // Without a resumable stream nothing is logged, so no message has a position.
        expect(received).toEqual([0, 50, 100].map((progress) => ({ callId: expect.any(String), message: fixtureProgress('p-1', progress) })));
      } finally {
        subscription.unsubscribe();
      }
    });

    it('relays log messages at or above the requested level only', async () => {
      const route = `route-${randomUUID().slice(0, 8)}`;
      const received: CallMessage[] = [];
      const subscription = bus.subscribe(sessionBroker.callMessage, (payload) => received.push(payload), { route });
      await bus.flush();
      try {
        await call('test_tool_with_logging', {}, { notify: { route, logLevel: 'error' } });
        await call('test_tool_with_logging', {}, { notify: { route, logLevel: 'debug' } });
        await expect.poll(() => received.length, { timeout: 2_000 }).toBe(3);
        expect(received.map((entry) => entry.message['method'])).toEqual(['notifications/message', 'notifications/message', 'notifications/message']);
        expect(received.map((entry) => (entry.message['params'] as { data: unknown }).data)).toEqual([
          'Tool execution started',
          'Tool processing data',
          'Tool execution completed',
        ]);
      } finally {
        subscription.unsubscribe();
      }
    });

    it('stops long_operation when callCancelled arrives', async () => {
      const route = `route-${randomUUID().slice(0, 8)}`;
      const callId = randomUUID();
      const received: CallMessage[] = [];
      const subscription = bus.subscribe(sessionBroker.callMessage, (payload) => received.push(payload), { route });
      await bus.flush();
      try {
        const started = Date.now();
        const pending = bus
          .request(
            toolExecutor.callTool,
            {
              tenant: 'demo',
              server: 'default',
              callId,
              name: 'long_operation',
              arguments: { seconds: 20, steps: 100 },
              protocolVersion: '2025-11-25',
              notify: { route, progressToken: 'p-1' },
            },
            as(member('demo')),
          )
          .catch((caught: unknown) => caught);
        await expect.poll(() => received.length, { timeout: 5_000 }).toBeGreaterThan(0);
        bus.emit(toolExecutor.callCancelled, { callId, reason: 'user pressed stop' });
        const outcome = await pending;
        expect(outcome).toBeInstanceOf(RpcError);
        expect(outcome).toMatchObject({ code: WireErrorCode.Cancelled });
        expect(Date.now() - started).toBeLessThan(10_000);
        const countAtEnd = received.length;
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(received.length).toBe(countAtEnd);
      } finally {
        subscription.unsubscribe();
      }
    });

    it('answers a timed-out call with an error result', async () => {
      const repository = app.get(CatalogRepository);
      await repository.ensureTenant('limits');
      await repository.saveTool('limits', {
        name: 'slow',
        description: 'long_operation with a 200 ms budget',
        inputSchema: { type: 'object' },
        kind: 'builtin',
        config: { handler: 'demo.long_operation' },
        timeoutMs: 200,
        enabled: true,
        requiredScopes: [],
        taskSupport: 'forbidden',
      });
      await repository.saveVirtualServer('limits', { name: 'tight', public: false }, ['slow']);
      bus.emit(toolExecutor.catalogChanged, { tenant: 'limits', servers: ['tight'] });
      await expect
        .poll(() => bus.request(toolExecutor.getVirtualServer, { tenant: 'limits', server: 'tight' }).catch(() => undefined), { timeout: 5_000 })
        .toBeDefined();
      const result = await resultOf(
        bus.request(
          toolExecutor.callTool,
          { tenant: 'limits', server: 'tight', callId: randomUUID(), name: 'slow', arguments: { seconds: 5 }, protocolVersion: '2025-11-25' },
          as(member('limits')),
        ),
      );
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Tool slow timed out after 200 ms' }] });
    });

    it(`calls an HTTP tool on 127.0.0.1 only when private networks are allowed (here: ${setup.allowPrivateNetworks})`, async () => {
      const repository = app.get(CatalogRepository);
      await repository.ensureTenant('web');
      await repository.saveTool('web', {
        name: 'echo',
        description: 'Echoes its arguments from a local HTTP endpoint',
        inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
        kind: 'http',
        config: { url: endpointUrl },
        timeoutMs: 5_000,
        enabled: true,
        requiredScopes: [],
        taskSupport: 'forbidden',
      });
      await repository.saveVirtualServer('web', { name: 'api', public: false }, ['echo']);
      bus.emit(toolExecutor.catalogChanged, { tenant: 'web', servers: ['api'] });
      await expect
        .poll(() => bus.request(toolExecutor.getVirtualServer, { tenant: 'web', server: 'api' }).catch(() => undefined), { timeout: 5_000 })
        .toBeDefined();
      const result = await resultOf(
        bus.request(
          toolExecutor.callTool,
          { tenant: 'web', server: 'api', callId: randomUUID(), name: 'echo', arguments: { word: 'hello' }, protocolVersion: '2025-11-25' },
          as(member('web')),
        ),
      );
      if (setup.allowPrivateNetworks) {
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toEqual({ echoed: { word: 'hello' } });
      } else {
        // Issue 13 item 5: the caller reads an error id, never the address; the tenant's administrators read why, and which setting would allow it.
        expect(result.isError).toBe(true);
        const errorId = /^The tool's endpoint could not be reached \(error id ([0-9a-f-]{36})\)\.$/.exec(toolResultText(result))?.[1];
        expect(errorId, toolResultText(result)).toBeDefined();
        await expect
          .poll(async () => (await bus.request(toolExecutor.getToolDefinition, { tenant: 'web', name: 'echo' })).lastError, { timeout: 5_000 })
          .toEqual({
            at: expect.any(String),
            errorId,
            kind: 'refused',
            detail: expect.stringMatching(/127\.0\.0\.1 is not a public address.*TOOL_HTTP_ALLOW_PRIVATE_NETWORKS=true/),
          });
      }
    });

    it.each([
      ['IPv4-compatible', '[::127.0.0.1]'],
      ['NAT64', '[64:ff9b::127.0.0.1]'],
    ])('never reaches the loopback endpoint through an %s IPv6 literal, and tells the caller only an error id', async (form, host) => {
      const repository = app.get(CatalogRepository);
      const name = `echo-${form.toLowerCase()}`;
      await repository.ensureTenant('web');
      await repository.saveTool('web', {
        name,
        inputSchema: { type: 'object' },
        kind: 'http',
        config: { url: endpointUrl.replace('127.0.0.1', host) },
        timeoutMs: 5_000,
        enabled: true,
        requiredScopes: [],
        taskSupport: 'forbidden',
      });
      await repository.saveVirtualServer('web', { name: 'v6', public: false }, [name]);
      bus.emit(toolExecutor.catalogChanged, { tenant: 'web', servers: ['v6'] });
      await expect.poll(() => listAs(member('web'), 'web', 'v6').catch(() => undefined), { timeout: 5_000 }).toMatchObject({ names: [name] });
      const result = await callAs(member('web'), 'web', 'v6', name);
      expect(result.isError).toBe(true);
      expect(toolResultText(result)).toMatch(/^The tool's endpoint could not be reached \(error id [0-9a-f-]{36}\)\.$/);
      // Refused by the guard when private networks are not allowed; with them allowed, the socket cannot reach it either.
      await expect
        .poll(async () => (await bus.request(toolExecutor.getToolDefinition, { tenant: 'web', name })).lastError?.kind, { timeout: 5_000 })
        .toBe(setup.allowPrivateNetworks ? 'unreachable' : 'refused');
    });
  });

  describe('resumable call streams (legacy era)', () => {
    /** The entries of `key`'s log, parsed, once it holds `count` (read from the start, then stopped). */
    const readLog = async (key: string, count: number) => {
      const entries: Array<{ n: number; entry: Record<string, unknown> }> = [];
      const reading = new AbortController();
      const done = eventLog.read(
        key,
        0,
        (event) => void entries.push({ n: event.n, entry: JSON.parse(event.data) as Record<string, unknown> }),
        reading.signal,
      );
      try {
        await expect.poll(() => entries.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(count);
      } finally {
        reading.abort();
        await done;
      }
      return entries;
    };
    /** Records what the executor sends to the broker replica `route`, in arrival order, until `stop`. */
    const listen = async (route: string) => {
      const received: Array<{ kind: 'message'; payload: CallMessage } | { kind: 'disconnect'; callId: string }> = [];
      const subscriptions = [
        bus.subscribe(sessionBroker.callMessage, (payload) => void received.push({ kind: 'message', payload }), { route }),
        bus.subscribe(sessionBroker.callDisconnectRequested, ({ callId }) => void received.push({ kind: 'disconnect', callId }), { route }),
      ];
      await bus.flush();
      const messages = () => received.flatMap((entry) => (entry.kind === 'message' ? [entry.payload] : []));
      return { received, messages, stop: () => subscriptions.forEach((subscription) => subscription.unsubscribe()) };
    };
    const newRoute = () => `route-${randomUUID().slice(0, 8)}`;

    it('logs each progress at 1..n with its token, then the result at n+1, and sends each live with its position', async () => {
      const route = newRoute();
      const key = streamKey();
      const listener = await listen(route);
      try {
        const result = await call('test_tool_with_progress', {}, { notify: { route, progressToken: 17 }, stream: { key, requestId: 42 } });
        const progress = [0, 50, 100].map((value) => fixtureProgress(17, value));
        expect(await readLog(key, 4)).toEqual([
          ...progress.map((message, index) => ({ n: index + 1, entry: { message } })),
          { n: 4, entry: { requestId: 42, outcome: { result } } },
        ]);
        await expect(eventLog.lastPosition(key)).resolves.toBe(4);
        await expect.poll(() => listener.messages().length, { timeout: 2_000 }).toBe(3);
        expect(listener.messages()).toEqual(progress.map((message, index) => ({ callId: expect.any(String), position: index + 1, message })));
      } finally {
        listener.stop();
      }
    });

    it('logs the INVALID_PARAMS error of a call of an unknown tool whose stream the broker primes at once', async () => {
      const key = streamKey();
      await expect(call('no_such_tool', {}, { notify: { route: newRoute() }, stream: { key, requestId: 'r-1', primeAfterMs: 0 } })).rejects.toMatchObject({
        code: WireErrorCode.InvalidParams,
      });
      expect(await readLog(key, 1)).toEqual([
        { n: 1, entry: { requestId: 'r-1', outcome: { error: { code: WireErrorCode.InvalidParams, message: 'Unknown tool: no_such_tool' } } } },
      ]);
    });

    it('logs CANCELLED after the progress sent before callCancelled arrived', async () => {
      const route = newRoute();
      const key = streamKey();
      const callId = randomUUID();
      const listener = await listen(route);
      try {
        const pending = bus
          .request(
            toolExecutor.callTool,
            {
              tenant: 'demo',
              server: 'default',
              callId,
              name: 'long_operation',
              arguments: { seconds: 20, steps: 100 },
              protocolVersion: '2025-11-25',
              notify: { route, progressToken: 'p-cancel' },
              stream: { key, requestId: 9 },
            },
            as(member('demo')),
          )
          .catch((caught: unknown) => caught);
        await expect.poll(() => listener.messages().length, { timeout: 5_000 }).toBeGreaterThan(0);
        bus.emit(toolExecutor.callCancelled, { callId, reason: 'user pressed stop' });
        await expect(pending).resolves.toMatchObject({ code: WireErrorCode.Cancelled });
        const last = await eventLog.lastPosition(key);
        expect(last).toBeGreaterThan(1);
        const entries = await readLog(key, last ?? 0);
        expect(entries.map((entry) => entry.n)).toEqual(Array.from({ length: last ?? 0 }, (_, index) => index + 1));
        expect(entries.at(-1)?.entry).toEqual({
          requestId: 9,
          outcome: { error: { code: WireErrorCode.Cancelled, message: 'Call cancelled: user pressed stop' } },
        });
        for (const { entry } of entries.slice(0, -1)) {
          expect(entry).toMatchObject({ message: { method: 'notifications/progress', params: { progressToken: 'p-cancel' } } });
        }
        await expect.poll(() => listener.messages().length, { timeout: 2_000 }).toBe(entries.length - 1);
        expect(listener.messages().map((message) => message.position)).toEqual(entries.slice(0, -1).map((entry) => entry.n));
      } finally {
        listener.stop();
      }
    });

    it('logs nothing for a call without a resumable stream', async () => {
      const route = newRoute();
      const key = streamKey();
      const listener = await listen(route);
      try {
        await call('test_tool_with_progress', {}, { notify: { route, progressToken: 'p-plain' } });
        await expect.poll(() => listener.messages().length, { timeout: 2_000 }).toBe(3);
        expect(listener.messages().every((message) => message.position === undefined)).toBe(true);
        await expect(eventLog.lastPosition(key)).resolves.toBeUndefined();
        await expect(eventLog.firstAvailable(key)).resolves.toBeUndefined();
      } finally {
        listener.stop();
      }
    });

    it("asks the broker to close the client's connection during test_reconnection, before the reply, and logs the result (S-81)", async () => {
      const route = newRoute();
      const key = streamKey();
      const listener = await listen(route);
      try {
        // What had arrived when the reply did: the disconnect request must be there already.
        const { result, arrivedBefore } = await call('test_reconnection', {}, { notify: { route }, stream: { key, requestId: 5 } }).then((value) => ({
          result: value,
          arrivedBefore: [...listener.received],
        }));
        expect(arrivedBefore).toEqual([{ kind: 'disconnect', callId: expect.any(String) }]);
        expect(toolResultText(result)).toMatch(/^Reconnection test completed successfully/);
        expect(await readLog(key, 1)).toEqual([{ n: 1, entry: { requestId: 5, outcome: { result } } }]);
        expect(listener.received).toHaveLength(1);
      } finally {
        listener.stop();
      }
    });
  });

  describe('authorization', () => {
    it('says which scopes each seeded server uses and which servers are public', async () => {
      await expect(bus.request(toolExecutor.getVirtualServer, { tenant: 'demo', server: 'default' })).resolves.toMatchObject({
        public: false,
        scopes: ['mcp', 'demo:crypto'],
      });
      await expect(bus.request(toolExecutor.getVirtualServer, { tenant: 'conformance', server: 'everything' })).resolves.toMatchObject({
        public: true,
        scopes: ['mcp'],
      });
    });

    it('hides hash_text from a caller without demo:crypto and lists it privately for one with demo', async () => {
      const baseline = await listAs(member('demo'), 'demo', 'default');
      expect(baseline.names).not.toContain('hash_text');
      expect(baseline.names).toContain('calculate');
      expect(baseline.cacheScope).toBe('private');
      const stepped = await listAs(member('demo', ['mcp', 'demo']), 'demo', 'default');
      expect(stepped.names).toEqual([...baseline.names, 'hash_text'].sort());
    });

    it('lists hash_text, marked with its scope, to a caller who could obtain demo:crypto by stepping up (issue 13 item 13)', async () => {
      const page = await bus.request(
        toolExecutor.listTools,
        { tenant: 'demo', server: 'default' },
        as({ ...member('demo'), obtainableScopes: ['mcp', 'demo'] }),
      );
      expect(page.tools.find((tool) => tool.name === 'hash_text')?._meta).toEqual({ [REQUIRED_SCOPES_META_KEY]: ['demo:crypto'] });
      expect(page.cacheScope).toBe('private');
      // Listed is not granted: the call still asks for the step-up.
      await expect(callAs({ ...member('demo'), obtainableScopes: ['mcp', 'demo'] }, 'demo', 'default', 'hash_text', { text: 'abc' })).rejects.toMatchObject({
        code: WireErrorCode.InsufficientScope,
      });
    });

    it('answers INSUFFICIENT_SCOPE with every scope the tool needs, and runs it once the scope is held', async () => {
      const error = (await callAs(member('demo'), 'demo', 'default', 'hash_text', { text: 'abc' }).catch((caught: unknown) => caught)) as RpcError;
      expect(error).toBeInstanceOf(RpcError);
      expect(error).toMatchObject({ code: WireErrorCode.InsufficientScope, data: { scopes: ['mcp', 'demo:crypto'] } });
      const result = await callAs(member('demo', ['mcp', 'demo:crypto']), 'demo', 'default', 'hash_text', { text: 'abc' });
      expect(result.isError).toBeFalsy();
      expect(toolResultText(result)).toContain('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    });

    it("answers FORBIDDEN to a principal of tenant A at tenant B's server, and to a request without a principal", async () => {
      await expect(bus.request(toolExecutor.listTools, { tenant: 'conformance', server: 'everything' }, as(member('demo')))).rejects.toMatchObject({
        code: WireErrorCode.Forbidden,
      });
      await expect(callAs(member('demo', ['mcp', 'demo', 'conformance']), 'conformance', 'everything', 'test_simple_text')).rejects.toMatchObject({
        code: WireErrorCode.Forbidden,
      });
      await expect(callAs(anonymous('conformance'), 'demo', 'default', 'calculate', { expression: '1' })).rejects.toMatchObject({
        code: WireErrorCode.Forbidden,
      });
      await expect(bus.request(toolExecutor.listTools, { tenant: 'conformance', server: 'everything' })).rejects.toMatchObject({
        code: WireErrorCode.Forbidden,
      });
    });
  });

  describe('catalog administration', () => {
    it('creates an HTTP and a built-in tool and a server exposing them: catalogChanged, then tools/list by scope', async () => {
      const tenant = 'acme';
      const watch = await watchCatalog(tenant);
      try {
        await expect(bus.request(toolExecutor.putTenant, { tenant })).resolves.toEqual({ created: true });
        await expect(bus.request(toolExecutor.putTenant, { tenant })).resolves.toEqual({ created: false });
        const echo = await bus.request(toolExecutor.putToolDefinition, {
          tenant,
          tool: {
            name: 'echo',
            description: 'Echoes its arguments from a local HTTP endpoint',
            inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
            kind: 'http',
            config: { url: endpointUrl },
            requiredScopes: ['acme:web'],
          },
        });
        expect(echo).toEqual({
          created: true,
          tool: expect.objectContaining({ name: 'echo', enabled: true, timeoutMs: 60_000, requiredScopes: ['acme:web'] }),
        });
        await bus.request(toolExecutor.putToolDefinition, {
          tenant,
          tool: {
            name: 'greet',
            description: 'Answers with a fixed text',
            inputSchema: { type: 'object' },
            kind: 'builtin',
            config: { handler: 'conformance.test_simple_text' },
          },
        });
        await expect(bus.request(toolExecutor.putServerDefinition, { tenant, server: { name: 'tools', tools: ['greet', 'echo'] } })).resolves.toEqual({
          created: true,
          server: { name: 'tools', public: false, tools: ['echo', 'greet'] },
        });
        await expect.poll(() => watch.events, { timeout: 5_000 }).toContainEqual({ tenant, servers: ['tools'] });

        await expect(bus.request(toolExecutor.getVirtualServer, { tenant, server: 'tools' })).resolves.toMatchObject({
          public: false,
          scopes: ['mcp', 'acme:web'],
        });
        await expect(listAs(member(tenant), tenant, 'tools')).resolves.toEqual({ names: ['greet'], cacheScope: 'private' });
        await expect(listAs(member(tenant, ['mcp', 'acme']), tenant, 'tools')).resolves.toEqual({ names: ['echo', 'greet'], cacheScope: 'private' });
        await expect(callAs(member(tenant), tenant, 'tools', 'echo', { word: 'hi' })).rejects.toMatchObject({
          code: WireErrorCode.InsufficientScope,
          data: { scopes: ['mcp', 'acme:web'] },
        });
        const allowed = await callAs(member(tenant, ['mcp', 'acme:web']), tenant, 'tools', 'echo', { word: 'hi' });
        if (setup.allowPrivateNetworks) expect(allowed.structuredContent).toEqual({ echoed: { word: 'hi' } });
        else expect(toolResultText(allowed)).toMatch(/could not be reached \(error id/);

        // Deleting a tool takes it out of the server that exposed it.
        watch.events.length = 0;
        await expect(bus.request(toolExecutor.deleteToolDefinition, { tenant, name: 'greet' })).resolves.toEqual({ deleted: true });
        await expect.poll(() => watch.events, { timeout: 5_000 }).toContainEqual({ tenant, servers: ['tools'] });
        await expect(bus.request(toolExecutor.getServerDefinition, { tenant, name: 'tools' })).resolves.toMatchObject({ tools: ['echo'] });
        await expect(listAs(member(tenant, ['mcp', 'acme']), tenant, 'tools')).resolves.toMatchObject({ names: ['echo'] });
        await expect(callAs(member(tenant), tenant, 'tools', 'greet')).rejects.toMatchObject({
          code: WireErrorCode.InvalidParams,
          message: 'Unknown tool: greet',
        });
        await expect(bus.request(toolExecutor.getToolDefinition, { tenant, name: 'greet' })).rejects.toMatchObject({ code: WireErrorCode.NotFound });
      } finally {
        watch.stop();
      }
    });

    it('keeps HTTP header values write-only: answers show them as set, updates keep what they do not name, calls send them', async () => {
      const tenant = 'keys';
      const secret = 'sk-int-0123456789';
      await bus.request(toolExecutor.putTenant, { tenant });
      const tool = {
        name: 'keyed',
        inputSchema: { type: 'object', properties: { word: { type: 'string' } } },
        kind: 'http' as const,
        config: { url: endpointUrl, headers: { 'X-Api-Key': secret } },
      };
      const put = await bus.request(toolExecutor.putToolDefinition, { tenant, tool });
      expect(put.tool).toMatchObject({ config: { url: endpointUrl, headers: { 'x-api-key': { set: true } } } });
      // An update that names no header (another description) keeps the value.
      await bus.request(toolExecutor.putToolDefinition, { tenant, tool: { ...tool, description: 'now described', config: { url: endpointUrl } } });
      const answers = [
        put,
        await bus.request(toolExecutor.getToolDefinition, { tenant, name: 'keyed' }),
        await bus.request(toolExecutor.listToolDefinitions, { tenant }),
      ];
      expect(JSON.stringify(answers)).not.toContain(secret);
      await bus.request(toolExecutor.putServerDefinition, { tenant, server: { name: 'api', tools: ['keyed'] } });
      await expect.poll(() => listAs(member(tenant), tenant, 'api').catch(() => undefined), { timeout: 5_000 }).toMatchObject({ names: ['keyed'] });
      const result = await callAs(member(tenant), tenant, 'api', 'keyed', { word: 'hi' });
      if (setup.allowPrivateNetworks) expect(result.structuredContent).toEqual({ echoed: { word: 'hi' }, apiKey: secret });
      else expect(result.isError).toBe(true);
    });

    it('refuses definitions it could not serve with INVALID_PARAMS and stores nothing', async () => {
      const tenant = 'strict';
      await bus.request(toolExecutor.putTenant, { tenant });
      const badSchema = bus.request(toolExecutor.putToolDefinition, {
        tenant,
        tool: {
          name: 'bad',
          inputSchema: { type: 'object', properties: { a: { type: 'no-such-type' } } },
          kind: 'builtin',
          config: { handler: 'demo.calculate' },
        },
      });
      await expect(badSchema).rejects.toMatchObject({
        code: WireErrorCode.InvalidParams,
        message: expect.stringContaining('inputSchema of bad does not compile'),
      });
      const unknownHandler = bus.request(toolExecutor.putToolDefinition, {
        tenant,
        tool: { name: 'ghost', inputSchema: { type: 'object' }, kind: 'builtin', config: { handler: 'nowhere.nothing' } },
      });
      await expect(unknownHandler).rejects.toMatchObject({ code: WireErrorCode.InvalidParams, message: expect.stringContaining('nowhere.nothing') });
      const unknownTool = bus.request(toolExecutor.putServerDefinition, { tenant, server: { name: 'main', tools: ['missing'] } });
      await expect(unknownTool).rejects.toMatchObject({ code: WireErrorCode.InvalidParams, message: expect.stringContaining('missing') });
      await expect(bus.request(toolExecutor.listToolDefinitions, { tenant })).resolves.toEqual({ tools: [] });
      await expect(bus.request(toolExecutor.listServerDefinitions, { tenant })).resolves.toEqual({ servers: [] });
    });

    it('answers NOT_FOUND for unknown tenants, tools and servers, and deleting a tenant removes its servers', async () => {
      const tenant = 'gone';
      await expect(bus.request(toolExecutor.listToolDefinitions, { tenant })).rejects.toMatchObject({ code: WireErrorCode.NotFound });
      await expect(bus.request(toolExecutor.deleteTenant, { tenant })).rejects.toMatchObject({ code: WireErrorCode.NotFound });
      await bus.request(toolExecutor.putTenant, { tenant });
      await expect(bus.request(toolExecutor.getToolDefinition, { tenant, name: 'nope' })).rejects.toMatchObject({ code: WireErrorCode.NotFound });
      await expect(bus.request(toolExecutor.deleteServerDefinition, { tenant, name: 'nope' })).rejects.toMatchObject({ code: WireErrorCode.NotFound });
      await bus.request(toolExecutor.putServerDefinition, { tenant, server: { name: 'open', public: true } });
      await expect(bus.request(toolExecutor.getVirtualServer, { tenant, server: 'open' })).resolves.toMatchObject({ public: true, scopes: ['mcp'] });
      await expect(listAs(anonymous(tenant), tenant, 'open')).resolves.toEqual({ names: [], cacheScope: 'public' });
      await expect(bus.request(toolExecutor.deleteTenant, { tenant })).resolves.toEqual({ deleted: true });
      await expect(bus.request(toolExecutor.getVirtualServer, { tenant, server: 'open' })).rejects.toMatchObject({ code: WireErrorCode.NotFound });
    });

    it('marks every server of a disabled tenant disabled, kept in the database, until it is enabled again', async () => {
      const tenant = 'switched-off';
      await bus.request(toolExecutor.putTenant, { tenant });
      await bus.request(toolExecutor.putServerDefinition, { tenant, server: { name: 'open', public: true } });
      await expect(bus.request(toolExecutor.putTenant, { tenant, disabled: true })).resolves.toEqual({ created: false });
      await expect(bus.request(toolExecutor.getVirtualServer, { tenant, server: 'open' })).resolves.toMatchObject({ public: true, disabled: true });
      // Stored, not only in this replica's snapshot: a full reload (a replica starting later) reads it back.
      await app.get(CatalogService).loadAll();
      await expect(bus.request(toolExecutor.getVirtualServer, { tenant, server: 'open' })).resolves.toMatchObject({ disabled: true });
      await bus.request(toolExecutor.putTenant, { tenant, disabled: false });
      expect(await bus.request(toolExecutor.getVirtualServer, { tenant, server: 'open' })).not.toHaveProperty('disabled');
    });
  });
});
