import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Principal, toolExecutor } from '@mcp-platform/protocol-contracts';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { getFreePort, type LegacyUpstream, serviceSetups, startLegacyUpstream, waitUntil } from '@mcp-platform/shared-testing';
import { UpstreamSourcesRepository } from '../src/upstreams/upstream-sources.repository';
import { bootUpstreamExecutor, testUpstreamOptions } from './executor-calls';

const run = `rs${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const TENANT = 'demo';
const admin: Principal = { subject: 'admin-of-demo', tenant: TENANT, clientId: 'test-client', scopes: ['mcp'], anonymous: false };
const as = { context: { principal: admin } };

/** Short background timers, so the test sees in seconds what takes minutes by default. */
const RESYNC = { resyncMs: 1_500, resyncCheckMs: 100, resyncRetryMs: 200 };

const setups = serviceSetups('tool-executor', run);

describe.each(setups)('background reads of upstream catalogs over $name', (setup) => {
  let app: INestApplication;
  let bus: MessageBus;
  let drop: (() => Promise<void>) | undefined;
  const upstreams: LegacyUpstream[] = [];

  const put = (name: string, url: string) =>
    bus.request(toolExecutor.putUpstream, { tenant: TENANT, upstream: { name, connection: { transport: 'streamable-http', url }, policy: 'approve-new' } }, as);
  const tools = async (source: string) =>
    (await bus.request(toolExecutor.listUpstreamItems, { tenant: TENANT, source }, as)).items.filter((item) => item.kind === 'tool');

  beforeAll(async () => {
    const database = await setup.database();
    drop = database.drop;
    app = await bootUpstreamExecutor(setup.messaging(), database.options, { ...testUpstreamOptions(), ...RESYNC });
    bus = app.get(MessageBus);
  });

  afterAll(async () => {
    await app?.close();
    for (const upstream of upstreams) await upstream.close();
    await drop?.();
  });

  it('reads a source that was down when it was written once its upstream is up, without an administrator', async () => {
    const port = await getFreePort();
    const written = await put('late', `http://127.0.0.1:${port}/mcp`);
    expect(written.upstream.health.state).toMatch(/failing|circuit-open/);
    expect(await tools('late')).toEqual([]);

    upstreams.push(await startLegacyUpstream({ port }));
    const read = await waitUntil(async () => ((await tools('late')).length > 0 ? tools('late') : undefined), {
      timeoutMs: 20_000,
      description: 'the background read of the source that came up',
    });
    expect(read.map((item) => [item.name, item.status])).toContainEqual(['echo', 'approved']);
    const view = await bus.request(toolExecutor.getUpstream, { tenant: TENANT, source: 'late' }, as);
    expect(view.health.state).toBe('connected');
  });

  it('sees a change the upstream never announced, and holds it until approved', async () => {
    const upstream = await startLegacyUpstream();
    upstreams.push(upstream);
    await put('quiet', upstream.url);
    expect((await tools('quiet')).find((item) => item.name === 'echo')?.status).toBe('approved');
    // No session is left to hear list_changed: only a background read can see the new description.
    await upstream.dropSessions();
    upstream.setToolDescription('echo', 'Echoes, changed without a word');
    const held = await waitUntil(async () => (await tools('quiet')).find((item) => item.name === 'echo' && item.status === 'held-changed'), {
      timeoutMs: 20_000,
      description: 'the background read to hold the changed tool',
    });
    expect(held.diff).toContainEqual(expect.objectContaining({ path: '/description', value: 'Echoes, changed without a word' }));
  });

  it('lets one replica at a time claim a due source', async () => {
    const repository = app.get(UpstreamSourcesRepository);
    const source = await repository.get(TENANT, 'quiet');
    if (!source) throw new Error('the source of the previous case is gone');
    // Due in 30 s: out of this replica's own loop's reach, in the claims' (they ask as of 31 s from now).
    await repository.scheduleSync(source.id, new Date(Date.now() + 30_000), 0);
    const asOf = new Date(Date.now() + 31_000);
    const claims = await Promise.all([repository.claimDueSyncs(asOf, 60_000, 100), repository.claimDueSyncs(asOf, 60_000, 100)]);
    expect(claims.flat().filter((claim) => claim.id === source.id)).toHaveLength(1);
  });
});
