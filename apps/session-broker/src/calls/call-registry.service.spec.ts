import { describe, expect, it, vi } from 'vitest';
import { sessionBroker } from '@mcp-platform/protocol-contracts';
import type { MessageBus } from '@mcp-platform/shared-messaging';
import { FakeTarget } from '../../test/fake-response-target';
import { resolveSessionBrokerOptions } from '../session-broker.options';
import { LazyResponse } from '../streams/lazy-response';
import { CallRegistry } from './call-registry.service';

const KEY = 'AAAAAAAAAAAAAAAAAAAAAA.c000000001BBBBBBBBBBBBBBBB';
const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 1, total: 10 } };
const rootsRequest = { jsonrpc: '2.0', id: 'l-a#1', method: 'roots/list' };
const completion = { jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: 'elicitation-7' } };

/** A registry over a bus stub that records what it emits and keeps the handlers it subscribed. */
function setup() {
  const emitted: Array<{ subject: string; payload: unknown }> = [];
  const handlers = new Map<string, (payload: unknown) => void>();
  const unsubscribed: string[] = [];
  const bus = {
    subscribe: (contract: { subject: string }, handler: (payload: unknown) => void) => {
      handlers.set(contract.subject, handler);
      return { unsubscribe: () => unsubscribed.push(contract.subject) };
    },
    emit: (contract: { subject: string }, payload: unknown) => emitted.push({ subject: contract.subject, payload }),
  } as unknown as MessageBus;
  const calls = new CallRegistry(
    bus,
    resolveSessionBrokerOptions({
      publicUrl: 'http://x',
      allowedHosts: [],
      allowedOrigins: [],
      bodyLimitBytes: 1024,
      replicaId: 'r1',
      auth: { issuer: 'http://as/oauth' },
    }),
  );
  return { calls, emitted, handlers, unsubscribed };
}

/** A call's response over an in-memory connection, resumable like a legacy call's. */
function callStream(primingEventId?: string): { target: FakeTarget; response: LazyResponse } {
  const target = new FakeTarget();
  const response = new LazyResponse(target);
  response.makeResumable({ ...(primingEventId === undefined ? {} : { primingEventId }), retryMs: 1_000 });
  return { target, response };
}

const toSession = (message: unknown) => ({ subject: sessionBroker.sessionMessage.subject, payload: { sessionId: 's-1', message } });

describe(CallRegistry, () => {
  describe('giveUpSilent', () => {
    const lostAfter = sessionBroker.CALL_HEARTBEAT_MS * sessionBroker.CALL_HEARTBEATS_MISSED;

    it('gives up, once, a call its executor stopped telling of, and keeps those heard of by heartbeat or message', () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(0);
      const { calls, handlers } = setup();
      calls.onModuleInit();
      try {
        const lost: string[] = [];
        for (const callId of ['silent', 'beating', 'talking'])
          calls.open(callId, { requestId: 1, response: callStream().response, lost: () => void lost.push(callId) });
        expect(calls.giveUpSilent(lostAfter - 1)).toEqual([]);

        vi.setSystemTime(lostAfter / 2);
        handlers.get(sessionBroker.callsAlive.subject)?.({ callIds: ['beating', 'unknown'] });
        calls.deliver({ callId: 'talking', message: progress });
        expect(calls.giveUpSilent(lostAfter)).toEqual(['silent']);
        expect(calls.giveUpSilent(lostAfter)).toEqual([]);
        expect(lost).toEqual(['silent']);
        expect(calls.giveUpSilent(lostAfter / 2 + lostAfter)).toEqual(['beating', 'talking']);
      } finally {
        calls.onModuleDestroy();
        vi.useRealTimers();
      }
    });

    it('forgets a closed call: it is never given up', () => {
      const { calls } = setup();
      const lost: string[] = [];
      calls.open('done', { requestId: 1, response: callStream().response, lost: () => void lost.push('done') });
      calls.close('done');
      expect(calls.giveUpSilent(Date.now() + 10 * lostAfter)).toEqual([]);
      expect(lost).toEqual([]);
    });
  });

  describe('deliver', () => {
    it('writes a message on its call’s stream as the executor shaped it, with the event id <streamKey>:<position>', () => {
      const { calls, emitted } = setup();
      const { target, response } = callStream();
      calls.open('l-a', { requestId: 1, response, sessionId: 's-1', streamKey: KEY });
      calls.deliver({ callId: 'l-a', position: 3, message: progress });
      expect(target.chunks).toEqual([`id: ${KEY}:3\nevent: message\ndata: ${JSON.stringify(progress)}\n\n`]);
      expect(emitted).toEqual([]);
    });

    it('writes a message without an id when the call has no logged stream or the message no position', () => {
      const { calls } = setup();
      const modern = callStream();
      const unlogged = callStream();
      calls.open('m-a', { requestId: 1, response: modern.response });
      calls.open('l-b', { requestId: 1, response: unlogged.response, sessionId: 's-1', streamKey: KEY });
      calls.deliver({ callId: 'm-a', position: 1, message: progress });
      calls.deliver({ callId: 'l-b', message: progress });
      expect(modern.target.chunks).toEqual([`event: message\ndata: ${JSON.stringify(progress)}\n\n`]);
      expect(unlogged.target.chunks).toEqual([`event: message\ndata: ${JSON.stringify(progress)}\n\n`]);
    });

    it('ignores messages of calls it does not hold', () => {
      const { calls, emitted } = setup();
      expect(() => calls.deliver({ callId: 'unknown', position: 1, message: rootsRequest })).not.toThrow();
      expect(emitted).toEqual([]);
    });

    it("sends a request or an elicitation completion to the session's GET stream, wherever it is, when the client left before it got any event id (S-85: the call goes on)", () => {
      const { calls, emitted } = setup();
      const { target, response } = callStream(`${KEY}:0`);
      calls.open('l-a', { requestId: 1, response, sessionId: 's-1', streamKey: KEY });
      target.dropConnection();
      calls.deliver({ callId: 'l-a', position: 1, message: rootsRequest });
      calls.deliver({ callId: 'l-a', position: 2, message: completion });
      expect(emitted).toEqual([toSession(rootsRequest), toSession(completion)]);
    });

    it('keeps everything on the call’s stream once the client holds an event id: it reads it when it resumes', () => {
      const { calls, emitted } = setup();
      const { target, response } = callStream(`${KEY}:0`);
      calls.open('l-a', { requestId: 1, response, sessionId: 's-1', streamKey: KEY });
      response.openStream();
      target.dropConnection();
      calls.deliver({ callId: 'l-a', position: 1, message: rootsRequest });
      calls.deliver({ callId: 'l-a', position: 2, message: completion });
      expect(emitted).toEqual([]);
    });

    it('drops progress and log messages its client can no longer receive, and everything of a call without a session', () => {
      const { calls, emitted } = setup();
      const legacy = callStream();
      const sessionless = callStream();
      calls.open('l-a', { requestId: 1, response: legacy.response, sessionId: 's-1', streamKey: KEY });
      calls.open('l-b', { requestId: 1, response: sessionless.response });
      legacy.target.dropConnection();
      sessionless.target.dropConnection();
      calls.deliver({ callId: 'l-a', position: 1, message: progress });
      calls.deliver({ callId: 'l-a', position: 2, message: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } } });
      calls.deliver({ callId: 'l-b', message: rootsRequest });
      expect(emitted).toEqual([]);
    });
  });

  describe('callDisconnectRequested', () => {
    it('closes the connection of the call it names with retry, without a response (S-81)', () => {
      const { calls, handlers } = setup();
      calls.onModuleInit();
      const named = callStream(`${KEY}:0`);
      const other = callStream(`${KEY}:0`);
      calls.open('l-a', { requestId: 1, response: named.response, sessionId: 's-1', streamKey: KEY });
      calls.open('l-b', { requestId: 1, response: other.response, sessionId: 's-1', streamKey: KEY });
      handlers.get(sessionBroker.callDisconnectRequested.subject)?.({ callId: 'l-a' });
      expect(named.target.chunks).toEqual([`id: ${KEY}:0\nretry: 1000\ndata: \n\n`, 'retry: 1000\n\n']);
      expect(named.target.writableEnded).toBe(true);
      expect(other.response.state).toBe('pending');
    });
  });

  describe('onModuleDestroy', () => {
    it('unsubscribes and disconnects every open call, so its client resumes on another replica', () => {
      const { calls, unsubscribed } = setup();
      calls.onModuleInit();
      const first = callStream(`${KEY}:0`);
      const second = callStream(`${KEY}:0`);
      calls.open('l-a', { requestId: 1, response: first.response, sessionId: 's-1', streamKey: KEY });
      calls.open('l-b', { requestId: 1, response: second.response, sessionId: 's-2', streamKey: KEY });
      second.response.notify(progress, `${KEY}:1`);
      calls.onModuleDestroy();
      expect(unsubscribed.sort()).toEqual(
        [sessionBroker.callsAlive.subject, sessionBroker.callDisconnectRequested.subject, sessionBroker.callMessage.subject].sort(),
      );
      for (const { target } of [first, second]) {
        expect(target.chunks.at(-1)).toBe('retry: 1000\n\n');
        expect(target.writableEnded).toBe(true);
      }
    });
  });

  describe('closeSession', () => {
    it('closes and returns the calls of one session', () => {
      const { calls } = setup();
      calls.open('a', { requestId: 1, response: callStream().response, sessionId: 's1' });
      calls.open('b', { requestId: 1, response: callStream().response, sessionId: 's2' });
      expect(calls.closeSession('s1')).toEqual(['a']);
      expect(calls.has('a')).toBe(false);
      expect(calls.has('b')).toBe(true);
    });
  });

  describe('handOffResumable', () => {
    it('closes with retry the calls whose clients hold an event id, and leaves the others to answer here', () => {
      const { calls } = setup();
      const primed = callStream(`${KEY}:0`);
      primed.response.openStream();
      const pending = callStream(`${KEY}:0`);
      calls.open('l-a', { requestId: 1, response: primed.response, sessionId: 's-1', streamKey: KEY });
      calls.open('l-b', { requestId: 2, response: pending.response, sessionId: 's-1', streamKey: KEY });
      expect(calls.handOffResumable()).toBe(1);
      expect(primed.target.chunks.at(-1)).toBe('retry: 1000\n\n');
      expect(primed.target.writableEnded).toBe(true);
      expect(pending.target.writableEnded).toBe(false);
    });
  });

  describe('endOpen', () => {
    it('answers every open call with a JSON-RPC error its client reads (503 and Retry-After in JSON, an event on a stream) and stops its work', () => {
      const { calls, emitted } = setup();
      const pending = callStream(`${KEY}:0`);
      const streaming = callStream();
      calls.open('l-a', { requestId: 'a-1', response: pending.response, sessionId: 's-1', streamKey: KEY });
      calls.open('m-b', { requestId: 9, response: streaming.response });
      streaming.response.notify(progress);
      expect(calls.endOpen(false)).toBe(2);
      const error = { code: -32603, message: 'Service Unavailable: the server shut down before the request finished; retry it' };
      expect(pending.target.status).toBe(503);
      expect(pending.target.headers).toMatchObject({ 'retry-after': '1' });
      expect(JSON.parse(pending.target.chunks.join(''))).toEqual({ jsonrpc: '2.0', id: 'a-1', error });
      expect(streaming.target.chunks.at(-1)).toBe(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 9, error })}\n\n`);
      expect(emitted.map(({ payload }) => (payload as { callId: string }).callId)).toEqual(['l-a', 'm-b']);
    });

    it('with hand-off, closes a resumable call with retry instead and lets its work go on', () => {
      const { calls, emitted } = setup();
      const primed = callStream(`${KEY}:0`);
      primed.response.openStream();
      calls.open('l-a', { requestId: 1, response: primed.response, sessionId: 's-1', streamKey: KEY });
      expect(calls.endOpen(true)).toBe(1);
      expect(primed.target.chunks.at(-1)).toBe('retry: 1000\n\n');
      expect(emitted).toEqual([]);
    });
  });
});
