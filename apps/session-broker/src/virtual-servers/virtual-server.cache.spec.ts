import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { toolExecutor } from '@mcp-platform/protocol-contracts';
import type { MessageBus } from '@mcp-platform/shared-messaging';
import { VirtualServerCache, type VirtualServerLookup } from './virtual-server.cache';

const SERVER: toolExecutor.VirtualServer = { tenant: 'acme', name: 'main', public: true, scopes: ['mcp'] };

/** An executor that answers what `current` says, counting the look-ups. */
function executor() {
  const state = { current: SERVER as toolExecutor.VirtualServer, lookups: 0 };
  const bus = {
    request: async () => {
      state.lookups++;
      return state.current;
    },
  } as unknown as MessageBus;
  return { state, cache: new VirtualServerCache(bus) };
}

/** Whether the look-up found the server disabled (`undefined`: found, enabled). */
async function disabledOf(lookup: Promise<VirtualServerLookup>): Promise<boolean | undefined> {
  const found = await lookup;
  if (!found.found) throw new Error(`not found: ${found.reason}`);
  return found.server.disabled;
}

describe(VirtualServerCache, () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves a tenant disabled by the event as disabled at once, whatever a stale executor still answers', async () => {
    const { cache } = executor();
    expect(await disabledOf(cache.resolve('acme', 'main'))).toBeUndefined();
    cache.tenantChanged('acme', 'disabled');
    expect(await disabledOf(cache.resolve('acme', 'main'))).toBe(true);
  });

  it('keeps nothing fetched while refusing on the event’s word beyond it, and then believes the executor again', async () => {
    const { cache, state } = executor();
    cache.tenantChanged('acme', 'deleted');
    await cache.resolve('acme', 'main');
    vi.advanceTimersByTime(60_001);
    state.current = { ...SERVER, disabled: true };
    expect(await disabledOf(cache.resolve('acme', 'main'))).toBe(true);
    expect(state.lookups).toBe(2);
  });

  it('looks at a disabled tenant again within seconds, so enabling it takes effect everywhere', async () => {
    const { cache, state } = executor();
    state.current = { ...SERVER, disabled: true };
    await cache.resolve('acme', 'main');
    state.current = SERVER;
    vi.advanceTimersByTime(5_001);
    expect(await disabledOf(cache.resolve('acme', 'main'))).toBeUndefined();
  });

  it('forgets the tenant’s servers and its refusal when it is enabled again', async () => {
    const { cache, state } = executor();
    cache.tenantChanged('acme', 'disabled');
    await cache.resolve('acme', 'main');
    cache.tenantChanged('acme', 'enabled');
    expect(await disabledOf(cache.resolve('acme', 'main'))).toBeUndefined();
    expect(state.lookups).toBe(2);
  });
});
