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
