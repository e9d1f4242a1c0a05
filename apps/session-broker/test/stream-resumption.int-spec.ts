import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionBroker, toolExecutor } from '@mcp-platform/protocol-contracts';
import { inProcessMessaging, MemoryEventLog, MessageBus, type MessagingOptions } from '@mcp-platform/shared-messaging';
import { isolatedNatsMessaging, parseSse, type SseEvent } from '@mcp-platform/shared-testing';
import { legacyCallId } from '../src/calls/call-id';
import { generateRequestStateKey } from '../src/config/request-state-keys';
import { parseEventId } from '../src/streams/stream-ids';
import { bootBroker, type BootedBroker, ExecutorLog } from './fake-tool-executor';
import { eventually, initializeRaw, type OpenStream, openStream, post } from './http-helpers';

const run = `rs${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
/** Short, so a stream outlives its events within the test. */
const RETENTION_MS = 3_000;
const RETRY_MS = 1_000;
const PROTOCOL_VERSION = '2025-11-25';

// Two replicas share one bus, one session bucket and one event log; each has its own route and memory.
const shared: Array<[string, () => [MessagingOptions, MessagingOptions]]> = [
  [
    'in-process',
    () => {
      const messaging = { ...inProcessMessaging(), eventLog: new MemoryEventLog({ maxAgeMs: RETENTION_MS }) };
      return [messaging, messaging];
    },
  ],
  [
    'nats',
    () => [
      { ...isolatedNatsMessaging(`broker-a-${run}`, run), eventLogMaxAgeMs: RETENTION_MS },
      { ...isolatedNatsMessaging(`broker-b-${run}`, run), eventLogMaxAgeMs: RETENTION_MS },
    ],
  ],
];

/** The complete events an SSE stream carried so far. */
function eventsOf(stream: OpenStream): SseEvent[] {
  const text = stream.text();
  return parseSse(text.slice(0, text.lastIndexOf('\n\n') + 2));
}

/** The JSON-RPC message an event carries. */
function messageOf(event: SseEvent | undefined): Record<string, unknown> {
  return JSON.parse(event?.data ?? 'null') as Record<string, unknown>;
}

const keyOf = (id: string | undefined): string => (id ?? '').slice(0, (id ?? '').lastIndexOf(':'));
const progress = (value: number) => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p-1', progress: value, total: 4 } });

describe.each(shared)('stream resumption across two broker replicas over %s', (_transport, messaging) => {
  let first: BootedBroker;
  let second: BootedBroker;
  const log = new ExecutorLog();

  beforeAll(async () => {
    const [a, b] = messaging();
    const requestStateKeys = [generateRequestStateKey('resumption')];
    first = await bootBroker(a, { executor: log, broker: { replicaId: `a-${run}`, requestStateKeys, sseRetryMs: RETRY_MS } });
    second = await bootBroker(b, { broker: { replicaId: `b-${run}`, requestStateKeys, sseRetryMs: RETRY_MS } });
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  /** A legacy session opened on replica A, and the headers its requests carry. */
  async function session(): Promise<{ sessionId: string; headers: Record<string, string> }> {
    const sessionId = await initializeRaw(first.mcpUrl, PROTOCOL_VERSION);
    return { sessionId, headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL_VERSION } };
  }

  /** A finished `chatty` call with a progress token: the ids its SSE answer carried. */
  async function finishedCall(headers: Record<string, string>): Promise<string[]> {
    const answer = await post(
      first.mcpUrl,
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'chatty', arguments: {}, _meta: { progressToken: 'c-1' } } },
      headers,
    );
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    return parseSse(answer.text).flatMap((event) => (event.id === undefined ? [] : [event.id]));
  }

  it('resumes a call’s stream cut on one replica through the other: exactly the events missed, then the response (S-90)', async () => {
    const { sessionId, headers } = await session();
    const call = await openStream(first.mcpUrl, {
      method: 'POST',
      headers,
      body: { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'slow_progress', arguments: {}, _meta: { progressToken: 'p-1' } } },
    });
    expect(call.headers.get('content-type')).toBe('text/event-stream');
    await eventually(() => (eventsOf(call).length >= 3 ? true : undefined));
    const seen = eventsOf(call).slice(0, 3);
    await call.close();
    const key = keyOf(seen[0]?.id);
    // spec S-80: the priming event comes first, an id and empty data, with the reconnection delay (S-81).
    expect(seen[0]).toEqual({ id: `${key}:0`, retry: RETRY_MS, data: '' });
    expect(parseEventId(`${key}:0`, sessionId)).toMatchObject({ kind: 'call', position: 0 });
    expect(seen.slice(1).map((event) => [event.id, messageOf(event)])).toEqual([
      [`${key}:1`, progress(1)],
      [`${key}:2`, progress(2)],
    ]);

    const resumed = await openStream(second.mcpUrl, { method: 'GET', headers: { ...headers, 'last-event-id': `${key}:2` } });
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get('content-type')).toBe('text/event-stream');
    // Progress 3 was logged before the client left: it is replayed; 4 and the result follow live.
    await eventually(() => (eventsOf(resumed).some((event) => event.id === `${key}:3`) ? true : undefined));
    log.release(legacyCallId(sessionId, 5));
    await resumed.ended;
    expect(eventsOf(resumed)).toEqual([
      { id: `${key}:2`, retry: RETRY_MS, data: '' },
      { id: `${key}:3`, event: 'message', data: JSON.stringify(progress(3)) },
      { id: `${key}:4`, event: 'message', data: JSON.stringify(progress(4)) },
      { event: 'message', data: JSON.stringify({ jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'slow done' }] } }) },
    ]);
  });

  it('answers 400 to a Last-Event-ID of another session’s stream, and replays it to its own session', async () => {
    const owner = await session();
    const stranger = await session();
    const ids = await finishedCall(owner.headers);
    const lastId = ids.at(-1) ?? '';
    const refused = await fetch(second.mcpUrl, { headers: { accept: 'text/event-stream', ...stranger.headers, 'last-event-id': lastId } });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Bad Request: Last-Event-ID names no stream of this session' },
    });

    const replayed = await fetch(second.mcpUrl, { headers: { accept: 'text/event-stream', ...owner.headers, 'last-event-id': lastId } });
    expect(replayed.status).toBe(200);
    const events = parseSse(await replayed.text());
    expect(events.at(-1)).toEqual({ event: 'message', data: JSON.stringify({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'done' }] } }) });
  });

  it(
    'answers 410 Gone to a Last-Event-ID of a call stream whose events are no longer kept',
    async () => {
      const { headers } = await session();
      const lastId = (await finishedCall(headers)).at(-1) ?? '';
      const gone = await eventually(async () => {
        const answer = await fetch(second.mcpUrl, { headers: { accept: 'text/event-stream', ...headers, 'last-event-id': lastId } });
        const body = await answer.text();
        return answer.status === 410 ? body : undefined;
      }, RETENTION_MS + 10_000);
      expect(JSON.parse(gone)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600, message: expect.stringMatching(/^Gone: /) } });
    },
    RETENTION_MS + 15_000,
  );

  it('gives every event of a GET stream an id, and replays what came after one on the other replica, which then holds the stream', async () => {
    const { sessionId, headers } = await session();
    const stream = await openStream(first.mcpUrl, { method: 'GET', headers });
    expect(stream.status).toBe(200);
    await eventually(() => (eventsOf(stream).length > 0 ? true : undefined));
    const key = keyOf(eventsOf(stream)[0]?.id);
    expect(eventsOf(stream)).toEqual([{ id: `${key}:0`, retry: RETRY_MS, data: '' }]);
    expect(parseEventId(`${key}:0`, sessionId)).toMatchObject({ kind: 'get' });

    const bus = first.app.get(MessageBus);
    const completion = { jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: 'e-1' } };
    bus.emit(sessionBroker.sessionMessage, { sessionId, message: completion });
    await eventually(() => (eventsOf(stream).length > 1 ? true : undefined));
    bus.emit(toolExecutor.catalogChanged, { tenant: 'demo', servers: ['default'] });
    await eventually(() => (eventsOf(stream).length > 2 ? true : undefined));
    const listChanged = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };
    expect(eventsOf(stream).slice(1)).toEqual([
      { id: `${key}:1`, event: 'message', data: JSON.stringify(completion) },
      { id: `${key}:2`, event: 'message', data: JSON.stringify(listChanged) },
    ]);
    await stream.close();

    // The client missed both: it resumes from the priming id on the other replica.
    const resumed = await openStream(second.mcpUrl, { method: 'GET', headers: { ...headers, 'last-event-id': `${key}:0` } });
    expect(resumed.status).toBe(200);
    await eventually(() => (eventsOf(resumed).length >= 6 ? true : undefined));
    expect(eventsOf(resumed).slice(0, 3)).toEqual([
      { id: `${key}:0`, retry: RETRY_MS, data: '' },
      { id: `${key}:1`, event: 'message', data: JSON.stringify(completion) },
      { id: `${key}:2`, event: 'message', data: JSON.stringify(listChanged) },
    ]);
    // Then, under a key of replica B's own, the resynchronisation of what no connection held: every list once.
    const resync = eventsOf(resumed).slice(3, 6);
    expect(resync.map(messageOf)).toEqual(['tools', 'resources', 'prompts'].map((list) => ({ jsonrpc: '2.0', method: `notifications/${list}/list_changed` })));
    const newKey = keyOf(resync[0]?.id);
    expect(newKey).not.toBe(key);
    expect(resync.map((event) => event.id)).toEqual([1, 2, 3].map((n) => `${newKey}:${n}`));

    // Replica B now holds the session's GET stream.
    const next = { jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: 'e-2' } };
    bus.emit(sessionBroker.sessionMessage, { sessionId, message: next });
    await eventually(() => (eventsOf(resumed).length > 6 ? true : undefined));
    const latest = eventsOf(resumed)[6];
    expect(messageOf(latest)).toEqual(next);
    expect(latest?.id).toBe(`${newKey}:4`);
    await resumed.close();
  });
});
