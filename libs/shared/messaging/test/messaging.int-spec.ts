import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineEvent, defineRpc, WireErrorCode } from '@mcp-platform/protocol-contracts';
import {
  type CallContext,
  EventHandler,
  EventLog,
  inProcessMessaging,
  KeyValueFactory,
  type LoggedEvent,
  MemoryEventLog,
  MessageBus,
  MessagingModule,
  type MessagingOptions,
  microserviceOptions,
  NATS_CONNECTION,
  RpcError,
  RpcHandler,
} from '../src';

const NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const run = `t${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

// Subjects are unique per run so parallel runs on one NATS server never meet.
const echo = defineRpc({
  subject: `tool-executor.v1.${run}-echo.get`,
  request: z.object({ text: z.string() }),
  response: z.object({ text: z.string(), subject: z.string().optional() }),
  timeoutMs: 2_000,
});
const failing = defineRpc({ subject: `tool-executor.v1.${run}-fail.get`, request: z.object({}), response: z.object({}) });
const crashing = defineRpc({ subject: `tool-executor.v1.${run}-crash.get`, request: z.object({}), response: z.object({}) });
const lying = defineRpc({ subject: `tool-executor.v1.${run}-lie.get`, request: z.object({}), response: z.object({ n: z.number() }) });
const slow = defineRpc({ subject: `tool-executor.v1.${run}-slow.get`, request: z.object({}), response: z.object({}) });
const nobody = defineRpc({ subject: `tool-executor.v1.${run}-nobody.get`, request: z.object({}), response: z.object({}), timeoutMs: 1_000 });
const happened = defineEvent({ subject: `tool-executor.v1.${run}-thing.happened`, delivery: 'all', payload: z.object({ n: z.number() }) });
const routed = defineEvent({ subject: `session-broker.v1.${run}-call.notified`, delivery: 'routed', payload: z.object({ n: z.number() }) });

const ordered = defineRpc({ subject: `tool-executor.v1.${run}-order.get`, request: z.object({ tag: z.string() }), response: z.object({}) });
const orderedEvent = defineEvent({ subject: `tool-executor.v1.${run}-order.happened`, delivery: 'all', payload: z.object({ tag: z.string() }) });

const seen: number[] = [];
const order: string[] = [];

@Controller()
class TestNatsController {
  @RpcHandler(echo)
  echo(request: { text: string }, context: CallContext) {
    return { text: request.text, ...(context.principal ? { subject: context.principal.subject } : {}) };
  }
  @RpcHandler(failing)
  fail(): never {
    throw new RpcError(WireErrorCode.NotFound, 'no such thing', { what: 'thing' });
  }
  @RpcHandler(crashing)
  crash(): never {
    throw new Error('boom');
  }
  @RpcHandler(lying)
  lie() {
    return { n: 'not a number' } as unknown as { n: number };
  }
  @RpcHandler(slow)
  async slow() {
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    return {};
  }
  @RpcHandler(ordered)
  ordered(request: { tag: string }) {
    order.push(request.tag);
    return {};
  }
  @EventHandler(orderedEvent)
  orderedEvent(payload: { tag: string }) {
    order.push(payload.tag);
  }
  @EventHandler(happened)
  happened(payload: { n: number }) {
    seen.push(payload.n);
  }
}

async function boot(options: MessagingOptions): Promise<INestApplication> {
  @Module({ imports: [MessagingModule.forRoot(options)], controllers: [TestNatsController] })
  class TestModule {}
  const app = await NestFactory.create(TestModule, new FastifyAdapter(), { logger: false });
  app.connectMicroservice(microserviceOptions(options), { inheritAppConfig: true });
  await app.init();
  await app.startAllMicroservices();
  return app;
}

/** A bus without handlers: only the client side of one platform (or one more process of it). */
async function busOnly(options: MessagingOptions): Promise<INestApplicationContext> {
  @Module({ imports: [MessagingModule.forRoot(options)] })
  class BusOnlyModule {}
  return NestFactory.createApplicationContext(BusOnlyModule, { logger: false });
}

const transports: Array<[string, () => MessagingOptions]> = [
  ['nats', () => ({ transport: 'nats', servers: NATS_URL, name: `messaging-test-${run}`, bucketPrefix: `${run}-`, subjectPrefix: run })],
  ['in-process', () => inProcessMessaging()],
];

describe.each(transports)('MessageBus over %s', (_name, options) => {
  let app: INestApplication;
  let bus: MessageBus;

  beforeAll(async () => {
    app = await boot(options());
    bus = app.get(MessageBus);
  });
  afterAll(async () => {
    await app.close();
  });

  describe('request', () => {
    it('returns the handler result, validated against the contract', async () => {
      await expect(bus.request(echo, { text: 'hello' })).resolves.toEqual({ text: 'hello' });
    });

    it('carries the principal in headers to the handler', async () => {
      const principal = { subject: 'alice', tenant: 'demo', scopes: [], anonymous: false };
      await expect(bus.request(echo, { text: 'x' }, { context: { principal } })).resolves.toEqual({ text: 'x', subject: 'alice' });
    });

    it('refuses an invalid payload before sending it', async () => {
      await expect(bus.request(echo, { text: 42 } as never)).rejects.toMatchObject({ code: WireErrorCode.InvalidRequest });
    });

    it('turns an error envelope into a typed RpcError', async () => {
      await expect(bus.request(failing, {})).rejects.toMatchObject({ code: WireErrorCode.NotFound, message: 'no such thing', data: { what: 'thing' } });
    });

    it('answers an unexpected failure as INTERNAL with an error id', async () => {
      const error = (await bus.request(crashing, {}).catch((caught: unknown) => caught)) as RpcError;
      expect(error).toBeInstanceOf(RpcError);
      expect(error.code).toBe(WireErrorCode.Internal);
      expect(error.errorId).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('refuses a reply that does not match the contract', async () => {
      await expect(bus.request(lying, {})).rejects.toMatchObject({ code: WireErrorCode.Internal });
    });

    it('gives up at the deadline', async () => {
      await expect(bus.request(slow, {}, { timeoutMs: 200 })).rejects.toMatchObject({ code: WireErrorCode.Timeout });
    });

    it('stops waiting when the caller aborts', async () => {
      const controller = new AbortController();
      const pending = bus.request(slow, {}, { signal: controller.signal });
      controller.abort();
      await expect(pending).rejects.toMatchObject({ code: WireErrorCode.Cancelled });
    });

    it('says UNAVAILABLE when nothing serves the subject', async () => {
      await expect(bus.request(nobody, {})).rejects.toMatchObject({ code: WireErrorCode.Unavailable });
    });
  });

  describe('events', () => {
    it('delivers an event to its @EventHandler', async () => {
      seen.length = 0;
      bus.emit(happened, { n: 7 });
      await bus.flush();
      await expect.poll(() => seen, { timeout: 2_000 }).toContain(7);
    });

    it('never lets an event overtake a request sent before it (a cancellation after its call)', async () => {
      order.length = 0;
      const pending = bus.request(ordered, { tag: 'request' });
      bus.emit(orderedEvent, { tag: 'event' });
      await pending;
      await expect.poll(() => order, { timeout: 2_000 }).toEqual(['request', 'event']);
    });

    it('delivers a routed event only to its route', async () => {
      const mine: number[] = [];
      const other: number[] = [];
      const a = bus.subscribe(routed, (payload) => mine.push(payload.n), { route: 'replica-a' });
      const b = bus.subscribe(routed, (payload) => other.push(payload.n), { route: 'replica-b' });
      await bus.flush();
      bus.emit(routed, { n: 1 }, { route: 'replica-a' });
      await expect.poll(() => mine, { timeout: 2_000 }).toEqual([1]);
      expect(other).toEqual([]);
      a.unsubscribe();
      b.unsubscribe();
    });
  });

  describe('key-value buckets', () => {
    it('stores, creates once, watches and deletes, with a growing revision on every write', async () => {
      const store = await app.get(KeyValueFactory).open(`test-${run}`);
      const changes: Array<{ key: string; value?: string; revision: number }> = [];
      const watch = await store.watch((change) => changes.push(change));
      const created = await store.create('k1', 'v1');
      expect(created).toEqual(expect.any(Number));
      await expect(store.create('k1', 'other')).resolves.toBeUndefined();
      await expect(store.get('k1')).resolves.toEqual({ value: 'v1', revision: created });
      await store.delete('k1');
      await expect(store.get('k1')).resolves.toBeUndefined();
      await expect
        .poll(() => changes, { timeout: 2_000 })
        .toEqual([
          { key: 'k1', value: 'v1', revision: created },
          { key: 'k1', revision: expect.any(Number) },
        ]);
      expect(changes[1]?.revision).toBeGreaterThan(created ?? Infinity);
      watch.stop();
    });

    it('compares and sets: an update based on a revision someone else overtook is refused', async () => {
      const store = await app.get(KeyValueFactory).open(`test-${run}`);
      const first = (await store.put('k2', 'a')) ?? 0;
      const second = await store.update('k2', 'b', first);
      expect(second).toBeGreaterThan(first);
      // A writer that still holds the first revision loses, and the value stays the winner's.
      await expect(store.update('k2', 'c', first)).resolves.toBeUndefined();
      await expect(store.get('k2')).resolves.toEqual({ value: 'b', revision: second });
      await store.delete('k2');
      await expect(store.update('k2', 'd', second ?? 0)).resolves.toBeUndefined();
    });
  });
});

describe('subject prefixes on one NATS server', () => {
  const natsOptions = (subjectPrefix: string, role: string): MessagingOptions => ({
    transport: 'nats',
    servers: NATS_URL,
    name: `messaging-prefix-${role}-${run}`,
    bucketPrefix: `${run}-`,
    subjectPrefix,
  });
  const ours = `${run}-ours`;
  const theirs = `${run}-theirs`;
  let server: INestApplication;
  let sameBus: INestApplicationContext;
  let otherBus: INestApplicationContext;

  beforeAll(async () => {
    server = await boot(natsOptions(ours, 'server'));
    sameBus = await busOnly(natsOptions(ours, 'same'));
    otherBus = await busOnly(natsOptions(theirs, 'other'));
  });
  afterAll(async () => {
    await Promise.all([server?.close(), sameBus?.close(), otherBus?.close()]);
  });

  it('answers a request from a bus on the same prefix', async () => {
    await expect(sameBus.get(MessageBus).request(echo, { text: 'same' })).resolves.toEqual({ text: 'same' });
  });

  it('never answers a request from a bus on another prefix: nothing serves it there', async () => {
    await expect(otherBus.get(MessageBus).request(echo, { text: 'other' })).rejects.toMatchObject({ code: WireErrorCode.Unavailable });
  });

  it('delivers events only within one prefix', async () => {
    seen.length = 0;
    const other = otherBus.get(MessageBus);
    const same = sameBus.get(MessageBus);
    other.emit(happened, { n: 41 });
    await other.flush();
    same.emit(happened, { n: 42 });
    await same.flush();
    await expect.poll(() => seen, { timeout: 2_000 }).toContain(42);
    // The flush after 41 returned once the NATS server had routed it; 42 came later on the same path to
    // the handler, so 41 would have arrived first had it been delivered.
    expect(seen).not.toContain(41);
  });

  it('delivers a routed event only to a listener on the same prefix', async () => {
    const heardSame: number[] = [];
    const heardOther: number[] = [];
    const a = sameBus.get(MessageBus).subscribe(routed, (payload) => heardSame.push(payload.n), { route: 'replica-a' });
    const b = otherBus.get(MessageBus).subscribe(routed, (payload) => heardOther.push(payload.n), { route: 'replica-a' });
    await Promise.all([sameBus.get(MessageBus).flush(), otherBus.get(MessageBus).flush()]);
    const emitter = server.get(MessageBus);
    emitter.emit(routed, { n: 1 }, { route: 'replica-a' });
    await emitter.flush();
    await expect.poll(() => heardSame, { timeout: 2_000 }).toEqual([1]);
    expect(heardOther).toEqual([]);
    a.unsubscribe();
    b.unsubscribe();
  });
});

/** Each platform's options, and the same platform with a 1 s event retention (its own JetStream stream on NATS). */
const eventLogTransports: Array<[string, () => MessagingOptions, () => MessagingOptions]> = [
  [
    'nats',
    () => ({ transport: 'nats', servers: NATS_URL, name: `event-log-test-${run}`, bucketPrefix: `${run}-`, subjectPrefix: run }),
    () => ({
      transport: 'nats',
      servers: NATS_URL,
      name: `event-log-short-${run}`,
      bucketPrefix: `${run}-short-`,
      subjectPrefix: `${run}-short`,
      eventLogMaxAgeMs: 1_000,
    }),
  ],
  ['in-process', () => inProcessMessaging(), () => ({ ...inProcessMessaging(), eventLog: new MemoryEventLog({ maxAgeMs: 1_000 }) })],
];

describe.each(eventLogTransports)('EventLog over %s', (name, options, shortLived) => {
  let first: INestApplicationContext;
  /** Another process of the same platform: on NATS its own connection, in-process the same log. */
  let second: INestApplicationContext;
  let short: INestApplicationContext;
  const readers: AbortController[] = [];

  /** Starts a read that collects what it is given. */
  function startReading(log: EventLog, stream: string, after: number): { events: LoggedEvent[]; done: Promise<void>; stop: () => void } {
    const events: LoggedEvent[] = [];
    const controller = new AbortController();
    readers.push(controller);
    const done = log.read(stream, after, (event) => events.push(event), controller.signal);
    return { events, done, stop: () => controller.abort() };
  }

  beforeAll(async () => {
    const platform = options();
    first = await busOnly(platform);
    second = await busOnly(platform);
    short = await busOnly(shortLived());
  });
  afterAll(async () => {
    for (const reader of readers) reader.abort();
    if (name === 'nats' && first) {
      // The test's JetStream streams would otherwise outlive the run (their events expire, the streams do not).
      const jsm = await first.get<NatsConnection>(NATS_CONNECTION).jetstreamManager();
      await Promise.all([`${run}-MCP_EVENTS`, `${run}-short-MCP_EVENTS`].map((stream) => jsm.streams.delete(stream).catch(() => false)));
    }
    await Promise.all([first?.close(), second?.close(), short?.close()]);
  });

  it('replays a stream from the start, then delivers live appends in order', async () => {
    const log = first.get(EventLog);
    const stream = `${run}.replayed`;
    await log.append(stream, 1, 'a');
    await log.append(stream, 2, 'b');
    const reading = startReading(log, stream, 0);
    await expect.poll(() => reading.events.length, { timeout: 5_000 }).toBe(2);
    for (const [position, data] of [
      [3, 'c'],
      [4, 'd'],
      [5, 'e'],
    ] as const)
      await log.append(stream, position, data);
    await expect
      .poll(() => reading.events, { timeout: 5_000 })
      .toEqual([
        { n: 1, data: 'a' },
        { n: 2, data: 'b' },
        { n: 3, data: 'c' },
        { n: 4, data: 'd' },
        { n: 5, data: 'e' },
      ]);
    reading.stop();
    await expect(reading.done).resolves.toBeUndefined();
  });

  it('replays only what follows the given position, from any process of the platform', async () => {
    const stream = `${run}.resumed`;
    for (const [position, data] of [
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
      [4, 'd'],
    ] as const)
      await first.get(EventLog).append(stream, position, data);
    const reading = startReading(second.get(EventLog), stream, 2);
    await first.get(EventLog).append(stream, 5, 'e');
    await expect
      .poll(() => reading.events, { timeout: 5_000 })
      .toEqual([
        { n: 3, data: 'c' },
        { n: 4, data: 'd' },
        { n: 5, data: 'e' },
      ]);
    reading.stop();
    await reading.done;
  });

  it('stores the positions the writer gives: an event appended at 7 after 3 is read as 7 by another process', async () => {
    const stream = `${run}.gapped`;
    await first.get(EventLog).append(stream, 3, 'a');
    await first.get(EventLog).append(stream, 7, 'b');
    const reading = startReading(second.get(EventLog), stream, 0);
    await expect
      .poll(() => reading.events, { timeout: 5_000 })
      .toEqual([
        { n: 3, data: 'a' },
        { n: 7, data: 'b' },
      ]);
    reading.stop();
    await reading.done;
    await expect(second.get(EventLog).firstAvailable(stream)).resolves.toBe(3);
    await expect(second.get(EventLog).lastPosition(stream)).resolves.toBe(7);
  });

  it('reports the last position of a stream another process wrote, and none for a stream without events', async () => {
    const stream = `${run}.handed-over`;
    await expect(second.get(EventLog).lastPosition(stream)).resolves.toBeUndefined();
    for (const [position, data] of [
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ] as const)
      await first.get(EventLog).append(stream, position, data);
    await first.get(EventLog).append(`${run}.handed-over-other`, 9, 'x');
    await expect(second.get(EventLog).lastPosition(stream)).resolves.toBe(3);
  });

  it('refuses a position that is not an integer of at least 1, storing nothing', async () => {
    const log = first.get(EventLog);
    const stream = `${run}.refused`;
    for (const position of [0, 1.5, Number.NaN]) await expect(log.append(stream, position, 'x')).rejects.toThrow(/invalid event position/);
    await expect(log.lastPosition(stream)).resolves.toBeUndefined();
  });

  it('reports no first or last position once retention dropped every event, and never renumbers the next append', async () => {
    const log = short.get(EventLog);
    const stream = `${run}.retained`;
    await expect(log.firstAvailable(stream)).resolves.toBeUndefined();
    await expect(log.lastPosition(stream)).resolves.toBeUndefined();
    await log.append(stream, 1, 'old');
    await expect(log.firstAvailable(stream)).resolves.toBe(1);
    await expect(log.lastPosition(stream)).resolves.toBe(1);
    // Bounded: the 1 s retention drops "old" well within the poll's 5 s.
    await expect.poll(() => log.firstAvailable(stream), { timeout: 5_000, interval: 250 }).toBeUndefined();
    await expect(log.lastPosition(stream)).resolves.toBeUndefined();
    // The writer's counter goes on: a client's Last-Event-ID 1 must not come to name the new event.
    await log.append(stream, 2, 'new');
    await expect(log.firstAvailable(stream)).resolves.toBe(2);
    await expect(log.lastPosition(stream)).resolves.toBe(2);
    const reading = startReading(log, stream, 1);
    await expect.poll(() => reading.events, { timeout: 5_000 }).toEqual([{ n: 2, data: 'new' }]);
    reading.stop();
    await reading.done;
  });
});
