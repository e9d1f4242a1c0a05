import { describe, expect, it } from 'vitest';
import { FakeTarget } from '../../test/fake-response-target';
import { LazyResponse } from './lazy-response';

const result = { jsonrpc: '2.0', id: 1, result: {} };
const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1 } };

describe('LazyResponse', () => {
  describe('respond', () => {
    it('answers application/json when the result comes first', () => {
      const target = new FakeTarget();
      const response = new LazyResponse(target, { 'mcp-session-id': 's' });
      response.respond(result);
      expect(target.status).toBe(200);
      expect(target.headers).toMatchObject({ 'content-type': 'application/json', 'mcp-session-id': 's' });
      expect(JSON.parse(target.chunks.join(''))).toEqual(result);
      expect(response.state).toBe('ended');
    });

    it('sends an error with its status and challenge header while still plain JSON (a 403 step-up)', () => {
      const target = new FakeTarget();
      const error = { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'Forbidden' } };
      new LazyResponse(target).respond(error, 403, { 'www-authenticate': 'Bearer error="insufficient_scope"' });
      expect(target.status).toBe(403);
      expect(target.headers).toMatchObject({ 'www-authenticate': 'Bearer error="insufficient_scope"' });
      expect(JSON.parse(target.chunks.join(''))).toEqual(error);
    });

    it('sends an error as the stream’s last event once it streams: the status and headers are long gone', () => {
      const target = new FakeTarget();
      const response = new LazyResponse(target);
      const error = { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'Forbidden' } };
      response.notify(progress);
      response.respond(error, 403, { 'www-authenticate': 'Bearer error="insufficient_scope"' });
      expect(target.status).toBe(200);
      expect(target.chunks.at(-1)).toBe(`event: message\ndata: ${JSON.stringify(error)}\n\n`);
      expect(target.writableEnded).toBe(true);
    });

    it('ends the SSE stream with the result after a notification', () => {
      const target = new FakeTarget();
      const response = new LazyResponse(target);
      response.notify(progress);
      expect(target.headers).toMatchObject({ 'content-type': 'text/event-stream', 'x-accel-buffering': 'no' });
      response.respond(result);
      expect(target.chunks).toEqual([`event: message\ndata: ${JSON.stringify(progress)}\n\n`, `event: message\ndata: ${JSON.stringify(result)}\n\n`]);
      expect(target.writableEnded).toBe(true);
    });

    it('drops writes after the end', () => {
      const target = new FakeTarget();
      const response = new LazyResponse(target);
      response.respond(result);
      expect(response.notify(progress)).toBe(false);
      response.respond(result);
      expect(target.chunks).toHaveLength(1);
    });
  });

  describe('onClientGone', () => {
    it('fires when the connection closes before the end, not after a normal end, and ends our side', () => {
      const gone: string[] = [];
      const dropped = new FakeTarget();
      const first = new LazyResponse(dropped);
      first.onClientGone(() => gone.push('first'));
      first.notify(progress);
      dropped.dropConnection();
      const finished = new FakeTarget();
      const second = new LazyResponse(finished);
      second.onClientGone(() => gone.push('second'));
      second.respond(result);
      expect(gone).toEqual(['first']);
      expect(first.open).toBe(false);
      expect(dropped.writableEnded).toBe(true);
    });
  });

  describe('makeResumable', () => {
    it('opens the stream with the priming event first: its id, the retry delay and empty data (S-80, S-81)', () => {
      const target = new FakeTarget();
      const response = new LazyResponse(target);
      response.makeResumable({ primingEventId: 'k:0', retryMs: 1500 });
      expect(target.chunks).toEqual([]);
      response.notify(progress, 'k:1');
      expect(target.headers).toMatchObject({ 'content-type': 'text/event-stream' });
      expect(target.chunks).toEqual(['id: k:0\nretry: 1500\ndata: \n\n', `id: k:1\nevent: message\ndata: ${JSON.stringify(progress)}\n\n`]);
    });

    it('sends no priming event without a priming id', () => {
      const target = new FakeTarget();
      const response = new LazyResponse(target);
      response.makeResumable({ retryMs: 1500 });
      response.openStream();
      response.notify(progress);
      expect(target.chunks).toEqual([`event: message\ndata: ${JSON.stringify(progress)}\n\n`]);
    });

    it('changes nothing once the stream is open', () => {
      const target = new FakeTarget();
      const response = new LazyResponse(target);
      response.openStream();
      response.makeResumable({ primingEventId: 'k:0', retryMs: 1500 });
      response.disconnect();
      expect(target.chunks).toEqual([]);
      expect(response.resumable).toBe(false);
    });
  });

  describe('notify', () => {
    it('writes the event id of a message that has one (S-89)', () => {
      const target = new FakeTarget();
      new LazyResponse(target).notify(progress, 'k:7');
      expect(target.chunks).toEqual([`id: k:7\nevent: message\ndata: ${JSON.stringify(progress)}\n\n`]);
    });
  });

  describe('resumable', () => {
    it('is true once the client got an event id, by a priming event or a message', () => {
      const primed = new LazyResponse(new FakeTarget());
      primed.makeResumable({ primingEventId: 'k:0', retryMs: 1500 });
      expect(primed.resumable).toBe(false);
      primed.openStream();
      expect(primed.resumable).toBe(true);

      const unprimed = new LazyResponse(new FakeTarget());
      unprimed.notify(progress);
      expect(unprimed.resumable).toBe(false);
      unprimed.notify(progress, 'k:2');
      expect(unprimed.resumable).toBe(true);
    });
  });

  describe('disconnect', () => {
    it('primes a pending resumable response, then ends the connection with the retry delay (S-81)', () => {
      const target = new FakeTarget();
      const response = new LazyResponse(target);
      response.makeResumable({ primingEventId: 'k:0', retryMs: 1500 });
      response.disconnect();
      expect(target.status).toBe(200);
      expect(target.chunks).toEqual(['id: k:0\nretry: 1500\ndata: \n\n', 'retry: 1500\n\n']);
      expect(target.writableEnded).toBe(true);
      expect(response.open).toBe(false);
      expect(response.notify(progress, 'k:1')).toBe(false);
    });

    it('just ends a stream its client cannot resume', () => {
      const target = new FakeTarget();
      const response = new LazyResponse(target);
      response.makeResumable({ retryMs: 1500 });
      response.notify(progress);
      response.disconnect();
      expect(target.chunks).toEqual([`event: message\ndata: ${JSON.stringify(progress)}\n\n`]);
      expect(target.writableEnded).toBe(true);
    });
  });

  describe('close', () => {
    it('ends an answer without a response as an empty stream', () => {
      const target = new FakeTarget();
      const response = new LazyResponse(target);
      response.close();
      expect(target.headers).toMatchObject({ 'content-type': 'text/event-stream' });
      expect(target.chunks).toEqual([]);
      expect(target.writableEnded).toBe(true);
    });
  });
});
