import { describe, expect, it } from 'vitest';
import { parseSse, sseMessages } from './sse';

describe('parseSse', () => {
  it('joins data lines and keeps ids, event names and retry', () => {
    const events = parseSse('id: 1\nretry: 500\ndata:\n\n: keep-alive\n\nevent: message\ndata: {"a":\ndata: 1}\n\n');
    expect(events).toEqual([
      { id: '1', retry: 500, data: '' },
      { event: 'message', data: '{"a":\n1}' },
    ]);
  });

  it('understands CRLF line endings', () => {
    expect(parseSse('data: x\r\n\r\n')).toEqual([{ data: 'x' }]);
  });
});

describe('sseMessages', () => {
  it('skips priming events and parses the rest', () => {
    expect(sseMessages('id: p\ndata: \n\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n')).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  });
});
