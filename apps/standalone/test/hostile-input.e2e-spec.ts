import type { Agent } from 'node:http';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connect } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bloatedInitialize,
  checkHostileAnswer,
  deleteLegacySession,
  generateHostileCases,
  HOSTILE_CATEGORIES,
  type HostileCase,
  keepAliveAgent,
  type LegacySession,
  openLegacySession,
  ownRssAfterGc,
  POST_HEADERS,
  processRssBytes,
  SeededRandom,
  sendRaw,
} from '@mcp-platform/shared-testing';
import { distributedMode, embeddedMode, type Platform, seededUrls } from './platforms';

/** Same seed, same requests; `HOSTILE_SEED=<n>` replays another sequence. */
const SEED = Number(process.env['HOSTILE_SEED'] ?? 20_261_130);
const COUNT = Number(process.env['HOSTILE_COUNT'] ?? 10_000);
/** Initializes of the exhaustion flood, all from one caller. */
const FLOOD_COUNT = Number(process.env['HOSTILE_INITIALIZE_COUNT'] ?? 10_000);
/** Matches the platform's default `BODY_LIMIT_BYTES` (both modes boot with the default). */
const BODY_LIMIT_BYTES = 4 * 1024 * 1024;
/** The platform's default `LEGACY_SESSIONS_PER_CALLER`: what one caller keeps, however many it opens. */
const SESSIONS_PER_CALLER = 100;
/**
 * How much the broker's resident memory may grow over the whole suite (10,000 hostile requests, then
 * 10,000 initializes of 8 to 60 KiB each). Before sessions were bounded, the flood alone kept about
 * 34 KiB per session, twice (bucket and mirror): the embedded process grew by about 760 MiB (its V8
 * heap after a GC by 740 MiB), the distributed broker by about 480 MiB. What remains is the heap's and
 * the allocator's own growth under load, which does not come back at once; in the embedded mode the
 * broker is this process, whose RSS also holds what the suite itself sent and read, hence the wider
 * bound there, and its V8 heap after a GC, which holds what is kept, is bounded tightly.
 */
const RSS_GROWTH_BOUND_BYTES = { embedded: 400 * 1024 * 1024, distributed: 160 * 1024 * 1024 };
const HEAP_GROWTH_BOUND_BYTES = 64 * 1024 * 1024;
/** How many sessions beyond the flooder's cap the bucket may hold: the suite's own, and replicas racing. */
const BUCKET_SLACK = 40;
/**
 * The suite attacks the broker's HTTP and JSON-RPC handling, not authorization (oauth-attacks does),
 * so it runs against the public conformance server; its tool with one string argument takes the
 * oversized and sentinel arguments.
 */
const TEXT_TOOL = { name: 'json_schema_2020_12_tool', argument: 'email' };
/**
 * Other loopback addresses are other clients to the broker: the hostile mix's initializes and the flood
 * each come from their own, so the per-caller cap they run into ends only their own sessions, never the
 * live session the rest of the suite goes through (anonymous callers are counted by address).
 */
const ATTACKER_ADDRESS = '127.0.0.2';
const FLOODER_ADDRESS = '127.0.0.3';

interface Failure {
  index: number;
  category: string;
  description: string;
  problems: string[];
  answer: string;
}

/** Sends every case (a few at a time, over keep-alive sockets) and checks each answer. */
async function attack(cases: readonly HostileCase[], agent: Agent): Promise<Failure[]> {
  const failures: Failure[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let current = next++; current < cases.length; current = next++) {
      const hostile = cases[current];
      if (hostile === undefined) continue;
      try {
        const answer = await sendRaw({ timeoutMs: 10_000, ...hostile.request }, agent);
        const problems = checkHostileAnswer(hostile.expect, answer);
        if (problems.length > 0) {
          failures.push({
            index: hostile.index,
            category: hostile.category,
            description: hostile.description,
            problems,
            answer: `${answer.status} ${answer.body.slice(0, 160)}`,
          });
        }
      } catch (error) {
        // A connection reset or a timeout: the broker crashed, hung, or dropped the request.
        failures.push({
          index: hostile.index,
          category: hostile.category,
          description: hostile.description,
          problems: [(error as Error).message],
          answer: '(none)',
        });
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return failures.sort((a, b) => a.index - b.index);
}

function summary(failures: readonly Failure[]): string {
  const byCategory = new Map<string, number>();
  for (const failure of failures) byCategory.set(failure.category, (byCategory.get(failure.category) ?? 0) + 1);
  const head = [...byCategory].map(([category, count]) => `${category}: ${count}`).join(', ');
  const lines = failures
    .slice(0, 40)
    .map((failure) => `#${failure.index} [${failure.category}] ${failure.description}\n    ${failure.problems.join('; ')}\n    got: ${failure.answer}`);
  return `${failures.length} answer(s) off spec (${head}); seed ${SEED}\n${lines.join('\n')}`;
}

/** `count` initializes from `localAddress`, `concurrency` at a time; the session ids granted, and what else came back. */
async function flood(url: string, agent: Agent, count: number, localAddress: string): Promise<{ sessionIds: string[]; other: string[] }> {
  const random = new SeededRandom(SEED + 1);
  const sessionIds: string[] = [];
  const other: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < count; index = next++) {
      const body = bloatedInitialize(index, random.int(8 * 1024, 60 * 1024), random);
      const answer = await sendRaw({ url, headers: { ...POST_HEADERS }, body, localAddress, timeoutMs: 20_000 }, agent);
      const sessionId = answer.headers['mcp-session-id'];
      if (answer.status === 200 && typeof sessionId === 'string') sessionIds.push(sessionId);
      else if (other.length < 20) other.push(`${answer.status} ${answer.body.slice(0, 160)}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return { sessionIds, other };
}

/** How many of `sessionIds` still answer a ping (the others ended: 404). */
async function liveSessions(url: string, agent: Agent, sessionIds: readonly string[]): Promise<string[]> {
  const live: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < sessionIds.length; index = next++) {
      const sessionId = sessionIds[index] ?? '';
      const answer = await sendRaw(
        { url, headers: { ...POST_HEADERS, 'mcp-session-id': sessionId }, body: JSON.stringify({ jsonrpc: '2.0', id: index, method: 'ping' }) },
        agent,
      );
      if (answer.status === 200) live.push(sessionId);
      else expect(answer.status).toBe(404);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return live;
}

/** Live keys of the run's session bucket on the real NATS (distributed mode). */
async function sessionBucketKeys(platform: Extract<Platform, { mode: 'distributed' }>): Promise<number> {
  const connection = await connect({ servers: platform.natsUrl.split(','), name: 'e2e-hostile-bucket' });
  try {
    const bucket = await connection.jetstream().views.kv(`${platform.bucketPrefix}mcp-sessions`);
    let keys = 0;
    for await (const _key of await bucket.keys()) keys += 1;
    return keys;
  } finally {
    await connection.close();
  }
}

/** The broker's resident memory: this process's after a GC, with its heap (embedded), the broker process's (distributed). */
async function brokerMemory(platform: Platform): Promise<{ rss: number; heap?: number }> {
  if (platform.mode === 'distributed') return { rss: await processRssBytes(platform.pidOf('session-broker')) };
  const own = ownRssAfterGc();
  return { rss: own.rssBytes, ...(own.collected ? { heap: own.heapUsedBytes } : {}) };
}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

describe.each([embeddedMode(), distributedMode(1)])('session broker under hostile input, $name mode', (mode) => {
  let platform: Platform;
  let url: string;
  let agent: Agent;
  let session: LegacySession;
  let before: { rss: number; heap?: number };

  beforeAll(async () => {
    platform = await mode.boot();
    url = seededUrls(platform.baseUrl).conformance;
    agent = keepAliveAgent();
    session = await openLegacySession(url, agent);
    before = await brokerMemory(platform);
  });

  afterAll(async () => {
    agent?.destroy();
    await platform?.stop();
  });

  it(`answers ${COUNT} malformed or hostile requests as the spec says, without a crash or a hang`, async () => {
    const ended = await openLegacySession(url, agent);
    expect(await deleteLegacySession(url, ended, agent)).toBe(200);
    const cases = generateHostileCases(
      { url, session, endedSessionId: ended.sessionId, bodyLimitBytes: BODY_LIMIT_BYTES, textTool: TEXT_TOOL, attackerAddress: ATTACKER_ADDRESS },
      { seed: SEED, count: COUNT },
    );
    expect(cases.length).toBeGreaterThanOrEqual(Math.min(COUNT, 10_000));
    expect(new Set(cases.map((hostile) => hostile.category)).size).toBe(HOSTILE_CATEGORIES.length);

    const failures = await attack(cases, agent);
    expect(failures.length, summary(failures)).toBe(0);
    // Nothing in the arguments may reach Object.prototype (embedded mode shares this process).
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it(`keeps at most ${SESSIONS_PER_CALLER} sessions of a caller that sends ${FLOOD_COUNT} initializes of 8 to 60 KiB, ending its oldest`, async () => {
    const { sessionIds, other } = await flood(url, agent, FLOOD_COUNT, FLOODER_ADDRESS);
    // Every initialize is answered: the caller's own oldest sessions end instead (no lock-out).
    expect(other).toEqual([]);
    expect(sessionIds).toHaveLength(FLOOD_COUNT);
    const live = await liveSessions(url, agent, sessionIds);
    expect(live.length).toBeGreaterThanOrEqual(SESSIONS_PER_CALLER - 10);
    expect(live.length).toBeLessThanOrEqual(SESSIONS_PER_CALLER + 10);
    if (platform.mode === 'distributed') {
      const keys = await sessionBucketKeys(platform);
      console.log(`distributed: the session bucket holds ${keys} sessions after ${FLOOD_COUNT} initializes from one caller`);
      expect(keys).toBeLessThanOrEqual(2 * SESSIONS_PER_CALLER + BUCKET_SLACK);
    }
  });

  it('still serves the session it was attacked through, and a fresh SDK client, afterwards', async () => {
    const ping = await sendRaw({ url, headers: session.headers, body: JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'ping' }) }, agent);
    expect(ping.status).toBe(200);

    const client = new LegacyClient({ name: 'e2e-after-attack', version: '1.0.0' });
    const transport = new LegacyTransport(new URL(url));
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: TEXT_TOOL.name, arguments: { [TEXT_TOOL.argument]: 'after the attack' } });
      expect(result.isError ?? false).toBe(false);
      expect(result.content).toEqual([{ type: 'text', text: 'Received: {"email":"after the attack"}' }]);
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });

  it(`grows the broker's resident memory by less than ${mib(RSS_GROWTH_BOUND_BYTES[mode.name])} over the whole attack`, async () => {
    const after = await brokerMemory(platform);
    const heap = before.heap !== undefined && after.heap !== undefined ? `; V8 heap after GC ${mib(before.heap)} to ${mib(after.heap)}` : '';
    console.log(
      `${mode.name}: the broker's RSS went from ${mib(before.rss)} to ${mib(after.rss)} (${mib(after.rss - before.rss)} more) over the attack${heap}`,
    );
    expect(after.rss - before.rss).toBeLessThan(RSS_GROWTH_BOUND_BYTES[mode.name]);
    if (before.heap !== undefined && after.heap !== undefined) expect(after.heap - before.heap).toBeLessThan(HEAP_GROWTH_BOUND_BYTES);
  });
});
