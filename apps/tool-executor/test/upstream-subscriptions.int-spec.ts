import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventPayload, type Principal, sessionBroker, toolExecutor } from '@mcp-platform/protocol-contracts';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { type LegacyUpstream, type ModernUpstream, serviceSetups, startLegacyUpstream, startModernUpstream, waitUntil } from '@mcp-platform/shared-testing';
import { bootUpstreamExecutor } from './executor-calls';

const run = `us${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const TENANT = 'demo';
const URI = 'memo://one';

type Updated = EventPayload<typeof toolExecutor.upstreamResourceUpdated>;

const admin: Principal = { subject: 'admin-of-demo', tenant: TENANT, clientId: 'test-client', scopes: ['mcp'], anonymous: false };
const as = { context: { principal: admin } };

describe.each(serviceSetups('tool-executor', run))('upstream resource subscriptions over $name', (setup) => {
  let app: INestApplication;
  let bus: MessageBus;
  let drop: (() => Promise<void>) | undefined;
  let legacy: LegacyUpstream;
  let modern: ModernUpstream;
  const updates: Updated[] = [];
  /** A broker replica, as the executor hears it. */
  const report = (holder: string, held: string[], released: string[] = []) =>
    bus.emit(sessionBroker.resourceInterestReported, {
      holder,
      held: held.map((uri) => ({ tenant: TENANT, uri })),
      released: released.map((uri) => ({ tenant: TENANT, uri })),
    });
  const updatesOf = (uri: string) => updates.filter((update) => update.uri === uri).length;

  beforeAll(async () => {
    const database = await setup.database();
    drop = database.drop;
    app = await bootUpstreamExecutor(setup.messaging(), database.options);
    bus = app.get(MessageBus);
    bus.subscribe(toolExecutor.upstreamResourceUpdated, (payload) => void updates.push(payload));
    legacy = await startLegacyUpstream();
    modern = await startModernUpstream();
    for (const [name, url] of [
      ['legacy', legacy.url],
      ['modern', modern.url],
    ] as const) {
      await bus.request(
        toolExecutor.putUpstream,
        { tenant: TENANT, upstream: { name, connection: { transport: 'streamable-http', url }, policy: 'approve-all' } },
        as,
      );
    }
  });

  afterAll(async () => {
    await app?.close();
    await legacy?.close();
    await modern?.close();
    await drop?.();
  });

  it('subscribes on both upstreams when a client first subscribes to a resource they serve', async () => {
    report('broker-a', [URI, 'memo://not-served']);
    await waitUntil(async () => legacy.subscribedUris().includes(URI), { timeoutMs: 5_000 });
    await waitUntil(async () => modern.resourceListens().some((uris) => uris.includes(URI)), { timeoutMs: 5_000 });
    // Only what the source serves is asked of it.
    expect(legacy.subscribedUris()).toEqual([URI]);
    expect(modern.resourceListens()).toEqual([[URI]]);
  });

  it("turns each upstream's resources/updated into the platform's event for the tenant and URI", async () => {
    const before = updatesOf(URI);
    expect(await legacy.touch(URI)).toBe(1);
    await waitUntil(async () => updatesOf(URI) > before, { timeoutMs: 5_000 });
    expect(updates.at(-1)).toEqual({ tenant: TENANT, uri: URI });
    // The interval of the first update passes: the next one goes at once.
    await new Promise((resolve) => setTimeout(resolve, toolExecutor.UPSTREAM_UPDATE_MIN_INTERVAL_MS + 100));
    const afterLegacy = updatesOf(URI);
    modern.touch(URI);
    await waitUntil(async () => updatesOf(URI) > afterLegacy, { timeoutMs: 5_000 });
  });

  it('coalesces a flood of updates of one URI, and drops updates of URIs nobody subscribed to', async () => {
    await new Promise((resolve) => setTimeout(resolve, toolExecutor.UPSTREAM_UPDATE_MIN_INTERVAL_MS + 100));
    const before = updatesOf(URI);
    const unasked = updatesOf('memo://two');
    for (let index = 0; index < 50; index += 1) modern.touch(URI);
    // A hostile upstream announcing URIs nobody subscribed to (there): dropped by the executor.
    expect(await legacy.touch('memo://two', { unasked: true })).toBeGreaterThan(0);
    expect(await legacy.touch('memo://not-served', { unasked: true })).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, toolExecutor.UPSTREAM_UPDATE_MIN_INTERVAL_MS * 2 + 300));
    const delivered = updatesOf(URI) - before;
    expect(delivered).toBeGreaterThanOrEqual(1);
    expect(delivered).toBeLessThanOrEqual(2);
    expect(updatesOf('memo://two')).toBe(unasked);
    expect(updatesOf('memo://not-served')).toBe(0);
  });

  it('keeps the upstream subscriptions while another replica still holds the URI, and closes them with the last', async () => {
    report('broker-b', [URI]);
    report('broker-a', [], [URI, 'memo://not-served']);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(legacy.subscribedUris()).toEqual([URI]);
    expect(modern.resourceListens()).toEqual([[URI]]);
    report('broker-b', [], [URI]);
    await waitUntil(async () => legacy.subscribedUris().length === 0, { timeoutMs: 5_000 });
    await waitUntil(async () => modern.resourceListens().length === 0, { timeoutMs: 5_000 });
    expect(legacy.requests.map((request) => request.method)).toContain('resources/unsubscribe');
  });

  it('subscribes to a URI one of the source’s templates matches', async () => {
    report('broker-d', ['memo://notes/7']);
    await waitUntil(async () => legacy.subscribedUris().includes('memo://notes/7'), { timeoutMs: 5_000 });
    const before = updatesOf('memo://notes/7');
    expect(await legacy.touch('memo://notes/7')).toBe(1);
    await waitUntil(async () => updatesOf('memo://notes/7') > before, { timeoutMs: 5_000 });
    report('broker-d', [], ['memo://notes/7']);
    await waitUntil(async () => legacy.subscribedUris().length === 0, { timeoutMs: 5_000 });
  });

  it('subscribes again on a new legacy session when the upstream forgot the old one', async () => {
    report('broker-c', [URI]);
    await waitUntil(async () => legacy.subscribedUris().includes(URI), { timeoutMs: 5_000 });
    await legacy.dropSessions();
    expect(legacy.subscribedUris()).toEqual([]);
    // The periodic check probes the session, gets 404, initializes a new one and subscribes on it.
    await waitUntil(async () => legacy.subscribedUris().includes(URI), { timeoutMs: 15_000 });
    report('broker-c', [], [URI]);
    await waitUntil(async () => legacy.subscribedUris().length === 0, { timeoutMs: 5_000 });
  });
});
