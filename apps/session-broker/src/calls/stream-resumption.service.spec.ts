import { afterEach, describe, expect, it } from 'vitest';
import { type EventLog, MemoryEventLog, WireErrorCode } from '@mcp-platform/shared-messaging';
import { FakeTarget } from '../../test/fake-response-target';
import { resolveSessionBrokerOptions } from '../session-broker.options';
import { LazyResponse } from '../streams/lazy-response';
import { SessionStreams } from '../streams/session-streams.registry';
import { eventId, newStreamKey, parseEventId } from '../streams/stream-ids';
import { type ResumeRequest, StreamResumption } from './stream-resumption.service';

const SESSION = 'session-0123456789abcdef';
const RETRY_MS = 1_500;
const RETENTION_MS = 60_000;
const options = resolveSessionBrokerOptions({
  publicUrl: 'http://x',
  allowedHosts: [],
  allowedOrigins: [],
  bodyLimitBytes: 1024,
  replicaId: 'r1',
  sseRetryMs: RETRY_MS,
  auth: { issuer: 'http://as/oauth' },
});

const progress = (value: number) => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: value } });
const listChanged = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };
const event = (id: string, message: unknown) => `id: ${id}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`;
const priming = (id: string) => `id: ${id}\nretry: ${RETRY_MS}\ndata: \n\n`;
/** Lets the log's asynchronous deliveries and the writers' queues run. */
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function fakeClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

interface Setup {
  log: EventLog;
  streams: SessionStreams;
  resumption: StreamResumption;
  /** Resumes from `lastEventId` on a fresh connection; `done` settles when `resume` does. */
  resume(lastEventId: string, sessionId?: string, subscriptions?: string[]): { target: FakeTarget; response: LazyResponse; done: Promise<void> };
}

const setups: Setup[] = [];

function setup(log: EventLog = new MemoryEventLog({ maxAgeMs: RETENTION_MS })): Setup {
  const streams = new SessionStreams(log, options);
  const resumption = new StreamResumption(log, streams, options);
  const resume = (lastEventId: string, sessionId = SESSION, subscriptions: string[] = []) => {
    const target = new FakeTarget();
    const response = new LazyResponse(target);
    const request: ResumeRequest = { sessionId, tenant: 'demo', server: 'default', priming: true, lastEventId, subscriptions };
    return { target, response, done: resumption.resume(request, response) };
  };
  const created = { log, streams, resumption, resume };
  setups.push(created);
  return created;
}

afterEach(() => {
  // Nothing keeps waiting on the log after a test.
  for (const { resumption, streams } of setups.splice(0)) {
    resumption.onModuleDestroy();
    streams.onModuleDestroy();
  }
});

async function appendAll(log: EventLog, key: string, entries: unknown[], from = 1): Promise<void> {
  for (const [index, entry] of entries.entries()) await log.append(key, from + index, JSON.stringify(entry));
}

function bodyOf(target: FakeTarget): unknown {
  return JSON.parse(target.chunks.join(''));
}

describe(StreamResumption, () => {
  describe('resume', () => {
    it('answers 400 to an id of another session’s stream, or one that names no stream (S-90)', async () => {
      const { log, resume } = setup();
      const foreignKey = newStreamKey('another-session', 'call');
      await appendAll(log, foreignKey, [{ message: progress(1) }]);
      for (const lastEventId of [eventId(foreignKey, 0), 'not-an-event-id']) {
        const { target, done } = resume(lastEventId);
        await done;
        expect(target.status).toBe(400);
        expect(bodyOf(target)).toMatchObject({
          jsonrpc: '2.0',
          error: { code: -32600, message: 'Bad Request: Last-Event-ID names no stream of this session' },
        });
      }
    });

    it('answers 503 when the event log cannot be read', async () => {
      const broken = new MemoryEventLog();
      broken.firstAvailable = () => Promise.reject(new Error('no JetStream'));
      const { resume } = setup(broken);
      const { target, done } = resume(eventId(newStreamKey(SESSION, 'call'), 1));
      await done;
      expect(target.status).toBe(503);
    });

    describe('of a call stream', () => {
      it('replays the events after the id with their ids, then ends with the JSON-RPC result built from the outcome', async () => {
        const { log, resume } = setup();
        const key = newStreamKey(SESSION, 'call');
        const result = { content: [{ type: 'text', text: 'done' }] };
        await appendAll(log, key, [{ message: progress(1) }, { message: progress(2) }, { message: progress(3) }, { requestId: 'r-7', outcome: { result } }]);
        const { target, done } = resume(eventId(key, 1));
        await done;
        expect(target.status).toBe(200);
        expect(target.headers).toMatchObject({ 'content-type': 'text/event-stream' });
        // The priming event repeats the id the client resumed from, with the retry delay (S-80, S-81).
        expect(target.chunks).toEqual([
          priming(eventId(key, 1)),
          event(eventId(key, 2), progress(2)),
          event(eventId(key, 3), progress(3)),
          `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 'r-7', result })}\n\n`,
        ]);
        expect(target.writableEnded).toBe(true);
      });

      it('waits for the events appended after it resumed, and ends with the outcome', async () => {
        const { log, resume } = setup();
        const key = newStreamKey(SESSION, 'call');
        await appendAll(log, key, [{ message: progress(1) }]);
        const { target, done } = resume(eventId(key, 0));
        await settle();
        expect(target.chunks).toEqual([priming(eventId(key, 0)), event(eventId(key, 1), progress(1))]);
        expect(target.writableEnded).toBe(false);
        await appendAll(log, key, [{ message: progress(2) }, { requestId: 3, outcome: { result: { content: [] } } }], 2);
        await done;
        expect(target.chunks.slice(2)).toEqual([
          event(eventId(key, 2), progress(2)),
          `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 3, result: { content: [] } })}\n\n`,
        ]);
        expect(target.writableEnded).toBe(true);
      });

      it('follows a young call stream that has no events yet from its priming id', async () => {
        const { log, resume } = setup();
        const key = newStreamKey(SESSION, 'call');
        const { target, done } = resume(eventId(key, 0));
        await settle();
        expect(target.status).toBe(200);
        await appendAll(log, key, [{ requestId: 1, outcome: { result: { content: [] } } }]);
        await done;
        expect(target.chunks.at(-1)).toBe(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [] } })}\n\n`);
      });

      it('maps an error outcome to its JSON-RPC error, like the live path', async () => {
        const { log, resume } = setup();
        const key = newStreamKey(SESSION, 'call');
        await appendAll(log, key, [
          { message: progress(1) },
          { requestId: 4, outcome: { error: { code: WireErrorCode.InvalidParams, message: 'Unknown tool: nope' } } },
        ]);
        const { target, done } = resume(eventId(key, 1));
        await done;
        expect(target.chunks.at(-1)).toBe(
          `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'Unknown tool: nope' } })}\n\n`,
        );
      });

      it('ends without a response when the call was cancelled (S-256)', async () => {
        const { log, resume } = setup();
        const key = newStreamKey(SESSION, 'call');
        await appendAll(log, key, [{ message: progress(1) }, { requestId: 4, outcome: { error: { code: WireErrorCode.Cancelled, message: 'cancelled' } } }]);
        const { target, done } = resume(eventId(key, 0));
        await done;
        expect(target.chunks).toEqual([priming(eventId(key, 0)), event(eventId(key, 1), progress(1))]);
        expect(target.writableEnded).toBe(true);
      });

      it('answers 410 Gone when the events after the id are no longer kept', async () => {
        const clock = fakeClock();
        const { log, resume } = setup(new MemoryEventLog({ maxAgeMs: 1_000, now: clock.now }));
        const key = newStreamKey(SESSION, 'call');
        await appendAll(log, key, [{ message: progress(1) }, { message: progress(2) }]);
        clock.advance(600);
        await appendAll(log, key, [{ message: progress(3) }], 3);
        clock.advance(600);
        await expect(log.firstAvailable(key)).resolves.toBe(3);
        const gone = resume(eventId(key, 1));
        await gone.done;
        expect(gone.target.status).toBe(410);
        expect(bodyOf(gone.target)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600, message: expect.stringMatching(/^Gone: /) } });
        // The id of a retained event is still honoured.
        const kept = resume(eventId(key, 3));
        await settle();
        expect(kept.target.status).toBe(200);
      });

      it('answers 410 Gone to the priming id of a stream older than the retention that has no events left', async () => {
        const { resume } = setup();
        const key = newStreamKey(SESSION, 'call', Date.now() - RETENTION_MS - 1_000);
        const { target, done } = resume(eventId(key, 0));
        await done;
        expect(target.status).toBe(410);
      });
    });

    describe('of a GET stream', () => {
      it('replays the events after the id up to the last one, then carries the session’s next messages under a new key', async () => {
        const { log, streams, resume } = setup();
        const key = newStreamKey(SESSION, 'get');
        await appendAll(log, key, [{ message: listChanged }, { message: progress(2) }, { message: progress(3) }]);
        const { target, done } = resume(eventId(key, 1), SESSION, ['demo://watched']);
        await done;
        await settle();
        expect(target.chunks.slice(0, 3)).toEqual([priming(eventId(key, 1)), event(eventId(key, 2), progress(2)), event(eventId(key, 3), progress(3))]);
        expect(target.writableEnded).toBe(false);
        // What happened while no connection held the stream was never logged: every list and subscription is resynchronised once.
        const resync = target.chunks
          .slice(3)
          .map((chunk) => JSON.parse(/\ndata: (.*)\n\n$/.exec(chunk)?.[1] ?? 'null') as { method: string; params?: unknown });
        expect(resync).toEqual([
          { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
          { jsonrpc: '2.0', method: 'notifications/resources/list_changed' },
          { jsonrpc: '2.0', method: 'notifications/prompts/list_changed' },
          { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'demo://watched' } },
        ]);

        expect(streams.send(SESSION, listChanged)).toBe(true);
        await settle();
        const next = /^id: (\S+)\n/.exec(target.chunks[7] ?? '')?.[1] ?? '';
        const parsed = parseEventId(next, SESSION);
        expect(parsed).toMatchObject({ kind: 'get', position: 5 });
        expect(parsed?.key).not.toBe(key);
        expect(target.chunks[7]).toBe(event(next, listChanged));
        // Logged before it was sent: the new stream can be resumed in turn.
        await expect(log.lastPosition(parsed?.key ?? '')).resolves.toBe(5);
      });

      it('starts afresh, primed with a new key, when the id is no longer kept', async () => {
        const { resume } = setup();
        const key = newStreamKey(SESSION, 'get', Date.now() - RETENTION_MS - 1_000);
        const { target, done } = resume(eventId(key, 4));
        await done;
        await settle();
        expect(target.status).toBe(200);
        // The priming event, then the resynchronisation of the three lists (no subscriptions).
        expect(target.chunks).toHaveLength(4);
        const primingId = /^id: (\S+)\nretry: /.exec(target.chunks[0] ?? '')?.[1] ?? '';
        expect(parseEventId(primingId, SESSION)).toMatchObject({ kind: 'get', position: 0 });
        expect(primingId.startsWith(key)).toBe(false);
      });
    });
  });

  describe('closeSession', () => {
    it('ends the call streams resumed for the session, without a response', async () => {
      const { resumption, resume } = setup();
      const mine = resume(eventId(newStreamKey(SESSION, 'call'), 0));
      const other = resume(eventId(newStreamKey('session-other', 'call'), 0), 'session-other');
      await settle();
      resumption.closeSession(SESSION);
      await mine.done;
      expect(mine.target.chunks).toHaveLength(1);
      expect(mine.target.writableEnded).toBe(true);
      expect(other.target.writableEnded).toBe(false);
    });
  });

  describe('onModuleDestroy', () => {
    it('closes the resumed call streams with the retry delay, so their clients resume elsewhere (S-81)', async () => {
      const { resumption, resume } = setup();
      const key = newStreamKey(SESSION, 'call');
      const { target, done } = resume(eventId(key, 0));
      await settle();
      resumption.onModuleDestroy();
      await done;
      expect(target.chunks).toEqual([priming(eventId(key, 0)), `retry: ${RETRY_MS}\n\n`]);
      expect(target.writableEnded).toBe(true);
    });
  });
});
