import { describe, expect, it } from 'vitest';
import type { MessageBus } from '@mcp-platform/shared-messaging';
import type { LazyResponse } from '../streams/lazy-response';
import { resolveSessionBrokerOptions } from '../session-broker.options';
import { CallRegistry } from './call-registry.service';

function stubResponse(): { response: LazyResponse; sent: unknown[] } {
  const sent: unknown[] = [];
  const response = { open: true, notify: (message: unknown) => sent.push(message) > 0, close: () => undefined } as unknown as LazyResponse;
  return { response, sent };
}

function registry(emitted: Array<{ subject: string; payload: unknown }> = []): CallRegistry {
  const bus = {
    subscribe: () => ({ unsubscribe: () => undefined }),
    emit: (contract: { subject: string }, payload: unknown) => emitted.push({ subject: contract.subject, payload }),
  } as unknown as MessageBus;
  return new CallRegistry(
    bus,
    resolveSessionBrokerOptions({ publicUrl: 'http://x', allowedHosts: [], allowedOrigins: [], bodyLimitBytes: 1024, replicaId: 'r1', auth: { issuer: 'http://as/oauth' } }),
  );
}

const progress = (callId: string, value: number) => ({ callId, notification: { method: 'notifications/progress' as const, params: { progress: value, total: 10 } } });
const message = (callId: string, level: 'debug' | 'info' | 'error') => ({
  callId,
  notification: { method: 'notifications/message' as const, params: { level, data: level } },
});

describe('CallRegistry', () => {
  describe('deliver', () => {
    it('adds the client progress token verbatim, string or number', () => {
      const calls = registry();
      const text = stubResponse();
      const numeric = stubResponse();
      calls.open('a', { response: text.response, progressToken: 'tok' });
      calls.open('b', { response: numeric.response, progressToken: 0 });
      calls.deliver(progress('a', 1));
      calls.deliver(progress('b', 1));
      expect(text.sent).toEqual([{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 1, total: 10 } }]);
      expect(numeric.sent).toEqual([{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 0, progress: 1, total: 10 } }]);
    });

    it('drops progress the client did not ask for, and progress that does not increase', () => {
      const calls = registry();
      const without = stubResponse();
      const withToken = stubResponse();
      calls.open('a', { response: without.response });
      calls.open('b', { response: withToken.response, progressToken: 1 });
      calls.deliver(progress('a', 1));
      for (const value of [1, 1, 0.5, 2]) calls.deliver(progress('b', value));
      expect(without.sent).toEqual([]);
      expect(withToken.sent.map((sent) => (sent as { params: { progress: number } }).params.progress)).toEqual([1, 2]);
    });

    it('forwards log messages at or above the call level only, and none without a level', () => {
      const calls = registry();
      const leveled = stubResponse();
      const silent = stubResponse();
      calls.open('a', { response: leveled.response, logLevel: 'info' });
      calls.open('b', { response: silent.response });
      for (const level of ['debug', 'info', 'error'] as const) {
        calls.deliver(message('a', level));
        calls.deliver(message('b', level));
      }
      expect(leveled.sent.map((sent) => (sent as { params: { level: string } }).params.level)).toEqual(['info', 'error']);
      expect(silent.sent).toEqual([]);
    });

    it('ignores notifications for calls it does not hold', () => {
      const calls = registry();
      expect(() => calls.deliver(progress('unknown', 1))).not.toThrow();
    });
  });

  describe('closeSession', () => {
    it('closes and returns the calls of one session', () => {
      const calls = registry();
      calls.open('a', { response: stubResponse().response, sessionId: 's1' });
      calls.open('b', { response: stubResponse().response, sessionId: 's2' });
      expect(calls.closeSession('s1')).toEqual(['a']);
      expect(calls.has('a')).toBe(false);
      expect(calls.has('b')).toBe(true);
    });
  });

  describe('ask', () => {
    const roots = { callId: 'l-a', inputId: 'l-a#1', method: 'roots/list' as const };

    it("writes a call's request to its client on the call's stream", () => {
      const emitted: Array<{ subject: string; payload: unknown }> = [];
      const calls = registry(emitted);
      const stream = stubResponse();
      calls.open('l-a', { response: stream.response, sessionId: 's-1' });
      calls.ask(roots);
      expect(stream.sent).toEqual([{ jsonrpc: '2.0', id: 'l-a#1', method: 'roots/list' }]);
      expect(emitted).toEqual([]);
    });

    it("sends it to the session's GET stream, wherever it is, when the call's stream is gone (S-85: the call goes on)", () => {
      const emitted: Array<{ subject: string; payload: unknown }> = [];
      const calls = registry(emitted);
      const gone = { open: false, notify: () => false, close: () => undefined } as unknown as LazyResponse;
      calls.open('l-a', { response: gone, sessionId: 's-1' });
      calls.ask({ ...roots, params: { _meta: {} } });
      expect(emitted).toEqual([
        { subject: 'session-broker.v1.session.message-posted', payload: { sessionId: 's-1', message: { jsonrpc: '2.0', id: 'l-a#1', method: 'roots/list', params: { _meta: {} } } } },
      ]);
    });

    it('ignores a request of a call this replica does not hold', () => {
      const emitted: Array<{ subject: string; payload: unknown }> = [];
      registry(emitted).ask(roots);
      expect(emitted).toEqual([]);
    });
  });

  describe('completeElicitation', () => {
    const completed = { callId: 'l-a', sessionId: 's-1', elicitationId: 'elicitation-7' };
    const notification = { jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: 'elicitation-7' } };

    it("writes notifications/elicitation/complete on the call's stream, where the elicitation went (S-327)", () => {
      const emitted: Array<{ subject: string; payload: unknown }> = [];
      const calls = registry(emitted);
      const stream = stubResponse();
      calls.open('l-a', { response: stream.response, sessionId: 's-1' });
      calls.completeElicitation(completed);
      expect(stream.sent).toEqual([notification]);
      expect(emitted).toEqual([]);
    });

    it("sends it to the session's GET stream, wherever it is, when the call's stream is gone or the call has answered", () => {
      const emitted: Array<{ subject: string; payload: unknown }> = [];
      const calls = registry(emitted);
      const gone = { open: false, notify: () => false, close: () => undefined } as unknown as LazyResponse;
      calls.open('l-a', { response: gone, sessionId: 's-1' });
      calls.completeElicitation(completed);
      calls.close('l-a');
      calls.completeElicitation(completed);
      const toSession = { subject: 'session-broker.v1.session.message-posted', payload: { sessionId: 's-1', message: notification } };
      expect(emitted).toEqual([toSession, toSession]);
    });
  });
});
