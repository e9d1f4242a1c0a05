import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from 'node:http';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  HOSTILE_CATEGORIES,
  checkHostileAnswer,
  deleteLegacySession,
  generateHostileCases,
  keepAliveAgent,
  openLegacySession,
  sendRaw,
  type HostileCase,
  type LegacySession,
} from '@mcp-platform/shared-testing';
import { distributedMode, embeddedMode, seededUrls, type Platform } from './platforms';

/** Same seed, same requests; `HOSTILE_SEED=<n>` replays another sequence. */
const SEED = Number(process.env['HOSTILE_SEED'] ?? 20_261_130);
const COUNT = Number(process.env['HOSTILE_COUNT'] ?? 1_200);
/** Matches the platform's default `BODY_LIMIT_BYTES` (both modes boot with the default). */
const BODY_LIMIT_BYTES = 4 * 1024 * 1024;
/**
 * The suite attacks the broker's HTTP and JSON-RPC handling, not authorization (oauth-attacks does),
 * so it runs against the public conformance server; its tool with one string argument takes the
 * oversized and sentinel arguments.
 */
const TEXT_TOOL = { name: 'json_schema_2020_12_tool', argument: 'name' };

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
          failures.push({ index: hostile.index, category: hostile.category, description: hostile.description, problems, answer: `${answer.status} ${answer.body.slice(0, 160)}` });
        }
      } catch (error) {
        // A connection reset or a timeout: the broker crashed, hung, or dropped the request.
        failures.push({ index: hostile.index, category: hostile.category, description: hostile.description, problems: [(error as Error).message], answer: '(none)' });
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
  const lines = failures.slice(0, 40).map((failure) => `#${failure.index} [${failure.category}] ${failure.description}\n    ${failure.problems.join('; ')}\n    got: ${failure.answer}`);
  return `${failures.length} answer(s) off spec (${head}); seed ${SEED}\n${lines.join('\n')}`;
}

describe.each([embeddedMode(), distributedMode(1)])('session broker under hostile input, $name mode', (mode) => {
  let platform: Platform;
  let url: string;
  let agent: Agent;
  let session: LegacySession;

  beforeAll(async () => {
    platform = await mode.boot();
    url = seededUrls(platform.baseUrl).conformance;
    agent = keepAliveAgent();
    session = await openLegacySession(url, agent);
  });

  afterAll(async () => {
    agent?.destroy();
    await platform?.stop();
  });

  it(`answers ${COUNT} malformed or hostile requests as the spec says, without a crash or a hang`, async () => {
    const ended = await openLegacySession(url, agent);
    expect(await deleteLegacySession(url, ended, agent)).toBe(200);
    const cases = generateHostileCases(
      { url, session, endedSessionId: ended.sessionId, bodyLimitBytes: BODY_LIMIT_BYTES, textTool: TEXT_TOOL },
      { seed: SEED, count: COUNT },
    );
    expect(cases.length).toBeGreaterThanOrEqual(1_000);
    expect(new Set(cases.map((hostile) => hostile.category)).size).toBe(HOSTILE_CATEGORIES.length);

    const failures = await attack(cases, agent);
    expect(failures.length, summary(failures)).toBe(0);
    // Nothing in the arguments may reach Object.prototype (embedded mode shares this process).
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
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
      expect(result.content).toEqual([{ type: 'text', text: 'Received: {"name":"after the attack"}' }]);
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });
});
