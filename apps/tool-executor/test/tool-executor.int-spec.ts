import 'reflect-metadata';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionBroker, toolExecutor, WireErrorCode, type EventPayload } from '@mcp-platform/protocol-contracts';
import { inProcessMessaging, MessageBus, MessagingModule, microserviceOptions, RpcError, type MessagingOptions } from '@mcp-platform/shared-messaging';
import { createThrowawayDatabase, DEFAULT_TEST_DATABASE_URL, type DatabaseOptions, type ThrowawayDatabase } from '@mcp-platform/shared-persistence';
import { CatalogRepository } from '../src/catalog/catalog.repository';
import { ToolExecutorModule } from '../src';

const NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const run = `te${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

type Notified = EventPayload<typeof sessionBroker.callNotified>;

interface Setup {
  name: string;
  messaging: () => MessagingOptions;
  database: () => Promise<{ options: DatabaseOptions; drop?: () => Promise<void> }>;
  allowPrivateNetworks: boolean;
}

const setups: Setup[] = [
  {
    name: 'NATS + PostgreSQL',
    messaging: () => ({ transport: 'nats', servers: NATS_URL, name: `tool-executor-test-${run}`, bucketPrefix: `${run}-` }),
    database: async () => {
      const database: ThrowawayDatabase = await createThrowawayDatabase(process.env['DATABASE_URL'] ?? DEFAULT_TEST_DATABASE_URL, 'tool_executor');
      return { options: { kind: 'postgres', url: database.url }, drop: () => database.drop() };
    },
    allowPrivateNetworks: true,
  },
  {
    name: 'in-process + PGlite',
    messaging: () => inProcessMessaging(),
    database: async () => ({ options: { kind: 'pglite' } }),
    allowPrivateNetworks: false,
  },
];

async function boot(messaging: MessagingOptions, database: DatabaseOptions, allowPrivateNetworks: boolean): Promise<INestApplication> {
  @Module({
    imports: [MessagingModule.forRoot(messaging), ToolExecutorModule.register({ database, seed: true, http: { allowPrivateNetworks, timeoutMs: 5_000 } })],
  })
  class TestModule {}
  const app = await NestFactory.create(TestModule, new FastifyAdapter(), { logger: ['error'] });
  app.connectMicroservice(microserviceOptions(messaging), { inheritAppConfig: true });
  await app.init();
  await app.startAllMicroservices();
  return app;
}

const textOf = (result: { content: Array<{ type: string }> }): string =>
  result.content
    .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
    .map((block) => block.text)
    .join('\n');

describe.each(setups)('ToolExecutorModule over $name', (setup) => {
  let app: INestApplication;
  let bus: MessageBus;
  let drop: (() => Promise<void>) | undefined;
  let endpoint: Server;
  let endpointUrl: string;

  const call = (name: string, args?: Record<string, unknown>, extra: Partial<Parameters<MessageBus['request']>[1]> = {}) =>
    bus.request(toolExecutor.callTool, {
      tenant: 'conformance',
      server: 'everything',
      callId: randomUUID(),
      name,
      ...(args === undefined ? {} : { arguments: args }),
      protocolVersion: '2025-11-25',
      ...extra,
    } as never);

  beforeAll(async () => {
    const database = await setup.database();
    drop = database.drop;
    app = await boot(setup.messaging(), database.options, setup.allowPrivateNetworks);
    bus = app.get(MessageBus);
    endpoint = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ echoed: JSON.parse(body) as unknown }));
      });
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/tool`;
  });

  afterAll(async () => {
    try {
      await new Promise((resolve) => endpoint?.close(resolve));
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
      const page = await bus.request(toolExecutor.listTools, { tenant: 'conformance', server: 'everything' });
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
      await expect(bus.request(toolExecutor.listTools, { tenant: 'conformance', server: 'everything', cursor: 'bogus!' })).rejects.toMatchObject({
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
        });
      }
      await repository.saveVirtualServer('paging', { name: 'big', public: false }, names);
      bus.emit(toolExecutor.catalogChanged, { tenant: 'paging', servers: ['big'] });
      await expect
        .poll(() => bus.request(toolExecutor.getVirtualServer, { tenant: 'paging', server: 'big' }).catch(() => undefined), { timeout: 5_000 })
        .toBeDefined();
      const first = await bus.request(toolExecutor.listTools, { tenant: 'paging', server: 'big' });
      expect(first.tools).toHaveLength(100);
      expect(first.nextCursor).toBeDefined();
      const second = await bus.request(toolExecutor.listTools, { tenant: 'paging', server: 'big', cursor: first.nextCursor });
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
      expect(textOf(result)).toBeTruthy();
    });

    it('answers INVALID_PARAMS for an unknown tool', async () => {
      const error = (await call('no_such_tool', {}).catch((caught: unknown) => caught)) as RpcError;
      expect(error).toMatchObject({ code: WireErrorCode.InvalidParams, message: 'Unknown tool: no_such_tool' });
    });

    it('answers invalid arguments with an actionable error result', async () => {
      const result = await call('json_schema_2020_12_tool', { name: 'x', surprise: true });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('unexpected property "surprise"');
    });

    it('adds the JSON text block to structured results and validates them', async () => {
      const result = await bus.request(toolExecutor.callTool, {
        tenant: 'demo',
        server: 'default',
        callId: randomUUID(),
        name: 'calculate',
        arguments: { expression: '6 * 7' },
        protocolVersion: '2025-11-25',
      });
      expect(result.structuredContent).toEqual({ expression: '6 * 7', result: 42 });
      expect(JSON.parse(textOf(result))).toEqual({ expression: '6 * 7', result: 42 });
    });

    it('relays strictly increasing progress on the caller route, in order', async () => {
      const route = `route-${randomUUID().slice(0, 8)}`;
      const received: Notified[] = [];
      const subscription = bus.subscribe(sessionBroker.callNotified, (payload) => received.push(payload), { route });
      await bus.flush();
      try {
        await call('test_tool_with_progress', {}, { notify: { route, progress: true } });
        await expect.poll(() => received.length, { timeout: 2_000 }).toBe(3);
        expect(received.map((entry) => entry.notification)).toEqual([
          { method: 'notifications/progress', params: { progress: 0, total: 100, message: 'Completed step 0 of 100' } },
          { method: 'notifications/progress', params: { progress: 50, total: 100, message: 'Completed step 50 of 100' } },
          { method: 'notifications/progress', params: { progress: 100, total: 100, message: 'Completed step 100 of 100' } },
        ]);
      } finally {
        subscription.unsubscribe();
      }
    });

    it('relays log messages at or above the requested level only', async () => {
      const route = `route-${randomUUID().slice(0, 8)}`;
      const received: Notified[] = [];
      const subscription = bus.subscribe(sessionBroker.callNotified, (payload) => received.push(payload), { route });
      await bus.flush();
      try {
        await call('test_tool_with_logging', {}, { notify: { route, progress: false, logLevel: 'error' } });
        await call('test_tool_with_logging', {}, { notify: { route, progress: false, logLevel: 'debug' } });
        await expect.poll(() => received.length, { timeout: 2_000 }).toBe(3);
        expect(received.map((entry) => (entry.notification.params as { data: unknown }).data)).toEqual([
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
      const received: Notified[] = [];
      const subscription = bus.subscribe(sessionBroker.callNotified, (payload) => received.push(payload), { route });
      await bus.flush();
      try {
        const started = Date.now();
        const pending = bus
          .request(toolExecutor.callTool, {
            tenant: 'demo',
            server: 'default',
            callId,
            name: 'long_operation',
            arguments: { seconds: 20, steps: 100 },
            protocolVersion: '2025-11-25',
            notify: { route, progress: true },
          })
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
      });
      await repository.saveVirtualServer('limits', { name: 'tight', public: false }, ['slow']);
      bus.emit(toolExecutor.catalogChanged, { tenant: 'limits', servers: ['tight'] });
      await expect
        .poll(() => bus.request(toolExecutor.getVirtualServer, { tenant: 'limits', server: 'tight' }).catch(() => undefined), { timeout: 5_000 })
        .toBeDefined();
      const result = await bus.request(toolExecutor.callTool, {
        tenant: 'limits',
        server: 'tight',
        callId: randomUUID(),
        name: 'slow',
        arguments: { seconds: 5 },
        protocolVersion: '2025-11-25',
      });
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
      });
      await repository.saveVirtualServer('web', { name: 'api', public: false }, ['echo']);
      bus.emit(toolExecutor.catalogChanged, { tenant: 'web', servers: ['api'] });
      await expect
        .poll(() => bus.request(toolExecutor.getVirtualServer, { tenant: 'web', server: 'api' }).catch(() => undefined), { timeout: 5_000 })
        .toBeDefined();
      const result = await bus.request(toolExecutor.callTool, {
        tenant: 'web',
        server: 'api',
        callId: randomUUID(),
        name: 'echo',
        arguments: { word: 'hello' },
        protocolVersion: '2025-11-25',
      });
      if (setup.allowPrivateNetworks) {
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toEqual({ echoed: { word: 'hello' } });
      } else {
        expect(result.isError).toBe(true);
        expect(textOf(result)).toMatch(/refused: 127\.0\.0\.1 is not a public address/);
      }
    });
  });
});
