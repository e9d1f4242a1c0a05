import { describe, expect, it } from 'vitest';
import { classifyMessage, nestsDeeperThan } from './json-rpc-message';

describe('classifyMessage', () => {
  it('classifies requests, notifications and responses', () => {
    expect(classifyMessage({ jsonrpc: '2.0', id: 1, method: 'ping' })).toEqual({ kind: 'request', id: 1, method: 'ping' });
    expect(classifyMessage({ jsonrpc: '2.0', id: 'a', method: 'tools/list', params: { cursor: 'x' } })).toEqual({
      kind: 'request',
      id: 'a',
      method: 'tools/list',
      params: { cursor: 'x' },
    });
    expect(classifyMessage({ jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual({ kind: 'notification', method: 'notifications/initialized' });
    expect(classifyMessage({ jsonrpc: '2.0', id: 3, result: {} })).toEqual({ kind: 'response', id: 3 });
  });

  it('rejects batches, non-objects and a wrong jsonrpc member', () => {
    expect(classifyMessage([{ jsonrpc: '2.0', id: 1, method: 'ping' }]).kind).toBe('invalid');
    expect(classifyMessage('ping').kind).toBe('invalid');
    expect(classifyMessage(null).kind).toBe('invalid');
    expect(classifyMessage({ jsonrpc: '1.0', id: 7, method: 'ping' })).toMatchObject({ kind: 'invalid', id: 7 });
    expect(classifyMessage({ id: 7, method: 'ping' })).toMatchObject({ kind: 'invalid', id: 7 });
  });

  it('rejects id null, fractional ids and non-string methods', () => {
    expect(classifyMessage({ jsonrpc: '2.0', id: null, method: 'ping' })).toEqual({ kind: 'invalid', reason: expect.stringMatching(/null/) });
    expect(classifyMessage({ jsonrpc: '2.0', id: 1.5, method: 'ping' }).kind).toBe('invalid');
    expect(classifyMessage({ jsonrpc: '2.0', id: 1, method: 42 })).toMatchObject({ kind: 'invalid', id: 1 });
    expect(classifyMessage({ jsonrpc: '2.0', id: 1, method: '' }).kind).toBe('invalid');
  });

  it('rejects params that are not an object and unexpected members', () => {
    expect(classifyMessage({ jsonrpc: '2.0', id: 1, method: 'ping', params: [1] }).kind).toBe('invalid');
    expect(classifyMessage({ jsonrpc: '2.0', id: 1, method: 'ping', extra: true }).kind).toBe('invalid');
    expect(classifyMessage({ jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } }).kind).toBe('invalid');
  });
});

describe('nestsDeeperThan', () => {
  const nested = (depth: number): unknown => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);

  it('accepts a value exactly at the limit', () => {
    expect(nestsDeeperThan({ a: nested(63) }, 64)).toBe(false);
  });

  it('refuses a value one level beyond the limit', () => {
    expect(nestsDeeperThan({ a: nested(64) }, 64)).toBe(true);
  });

  it('walks thousands of levels without recursion', () => {
    expect(nestsDeeperThan(nested(100_000), 64)).toBe(true);
  });

  it('treats scalars as depth zero', () => {
    expect(nestsDeeperThan('text', 0)).toBe(false);
  });
});
