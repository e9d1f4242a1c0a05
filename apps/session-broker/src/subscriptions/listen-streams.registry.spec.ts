import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeTarget } from '../../test/fake-response-target';
import { LazyResponse } from '../streams/lazy-response';
import { KEEP_ALIVE_MS } from '../streams/stream-expiry';
import { ListenStreams } from './listen-streams.registry';
import { readSubscriptionFilter, type HonouredFilter } from './subscription-filter';

const ID_KEY = 'io.modelcontextprotocol/subscriptionId';

function filterOf(notifications: Record<string, unknown>): HonouredFilter {
  const filter = readSubscriptionFilter({ notifications });
  if ('invalid' in filter) throw new Error(filter.invalid);
  return filter;
}

/** The JSON-RPC messages written to a target, in order. */
function messagesOn(target: FakeTarget): unknown[] {
  return target.chunks.filter((chunk) => chunk.startsWith('event: message')).map((chunk) => JSON.parse(chunk.slice(chunk.indexOf('data: ') + 6)) as unknown);
}

describe('ListenStreams', () => {
  let streams: ListenStreams;

  beforeEach(() => {
    streams = new ListenStreams();
  });
  afterEach(() => {
    streams.onModuleDestroy();
    vi.useRealTimers();
  });

  function listen(id: string | number, notifications: Record<string, unknown>, where: { tenant?: string; server?: string; endsAt?: number } = {}): FakeTarget {
    const target = new FakeTarget();
    streams.open({
      id,
      tenant: where.tenant ?? 'demo',
      server: where.server ?? 'default',
      filter: filterOf(notifications),
      response: new LazyResponse(target),
      ...(where.endsAt === undefined ? {} : { endsAt: where.endsAt }),
      completion: () => ({ resultType: 'complete', _meta: { [ID_KEY]: id } }),
    });
    return target;
  }

  it('opens an SSE stream whose first message is the acknowledgement with the honoured filter (S-310)', () => {
    const target = listen('sub-1', { toolsListChanged: true, promptsListChanged: false });
    expect(target.status).toBe(200);
    expect(target.headers?.['content-type']).toBe('text/event-stream');
    expect(messagesOn(target)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { toolsListChanged: true }, _meta: { [ID_KEY]: 'sub-1' } } },
    ]);
  });

  it('sends each list change only to the streams of that tenant and server that asked for it, tagged (S-309, S-311)', () => {
    const tools = listen(1, { toolsListChanged: true });
    const prompts = listen(2, { promptsListChanged: true });
    const otherServer = listen(3, { toolsListChanged: true }, { server: 'private' });
    const otherTenant = listen(4, { toolsListChanged: true }, { tenant: 'acme' });
    expect(streams.notifyListChanged('demo', ['default'], 'tools')).toBe(1);
    expect(streams.notifyListChanged('demo', [], 'prompts')).toBe(1);
    expect(streams.notifyListChanged('demo', [], 'resources')).toBe(0);
    expect(messagesOn(tools).slice(1)).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [ID_KEY]: 1 } } }]);
    expect(messagesOn(prompts).slice(1)).toEqual([{ jsonrpc: '2.0', method: 'notifications/prompts/list_changed', params: { _meta: { [ID_KEY]: 2 } } }]);
    expect(messagesOn(otherServer)).toHaveLength(1);
    expect(messagesOn(otherTenant)).toHaveLength(1);
  });

  it('sends resources/updated to the streams of the tenant subscribed to that exact URI', () => {
    const watching = listen('w', { resourceSubscriptions: ['demo://a'] });
    const elsewhere = listen('x', { resourceSubscriptions: ['demo://a'] }, { tenant: 'acme' });
    expect(streams.notifyResourceUpdated('demo', 'demo://a/child')).toBe(0);
    expect(streams.notifyResourceUpdated('demo', 'demo://a')).toBe(1);
    expect(messagesOn(watching).slice(1)).toEqual([{ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'demo://a', _meta: { [ID_KEY]: 'w' } } }]);
    expect(messagesOn(elsewhere)).toHaveLength(1);
  });

  it('forgets a stream the client closed', () => {
    const target = listen(1, { toolsListChanged: true });
    expect(streams.size).toBe(1);
    target.dropConnection();
    expect(streams.size).toBe(0);
    expect(streams.notifyListChanged('demo', [], 'tools')).toBe(0);
  });

  it('writes a keep-alive comment on every open stream periodically (S-106)', () => {
    vi.useFakeTimers();
    const target = listen(1, {});
    vi.advanceTimersByTime(KEEP_ALIVE_MS * 2);
    expect(target.chunks.filter((chunk) => chunk.startsWith(':'))).toHaveLength(2);
    target.dropConnection();
    vi.advanceTimersByTime(KEEP_ALIVE_MS * 2);
    expect(target.chunks.filter((chunk) => chunk.startsWith(':'))).toHaveLength(2);
  });

  it('ends a stream with its result when the access token it was opened with expires', () => {
    vi.useFakeTimers();
    const expiring = listen('e', { toolsListChanged: true }, { endsAt: Date.now() + 60_000 });
    const lasting = listen('l', { toolsListChanged: true });
    vi.advanceTimersByTime(59_999);
    expect(expiring.writableEnded).toBe(false);
    vi.advanceTimersByTime(1);
    expect(messagesOn(expiring).at(-1)).toEqual({ jsonrpc: '2.0', id: 'e', result: { resultType: 'complete', _meta: { [ID_KEY]: 'e' } } });
    expect(expiring.writableEnded).toBe(true);
    expect(lasting.writableEnded).toBe(false);
    expect(streams.size).toBe(1);
  });

  it('ends every stream at shutdown with the listen result and closes it (S-313)', () => {
    const first = listen(7, { toolsListChanged: true });
    const second = listen('eight', {}, { tenant: 'acme' });
    streams.onModuleDestroy();
    expect(messagesOn(first).at(-1)).toEqual({ jsonrpc: '2.0', id: 7, result: { resultType: 'complete', _meta: { [ID_KEY]: 7 } } });
    expect(messagesOn(second).at(-1)).toEqual({ jsonrpc: '2.0', id: 'eight', result: { resultType: 'complete', _meta: { [ID_KEY]: 'eight' } } });
    expect(first.writableEnded && second.writableEnded).toBe(true);
    expect(streams.size).toBe(0);
  });
});
