import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DistributedPlatform } from '@mcp-platform/shared-testing';
import { type LegacySession, obtainToken, openLegacySession, parseSse, sendRaw, sseMessages, toolResultText } from '@mcp-platform/shared-testing';
import { distributedMode, embeddedMode, type Platform, type PlatformMode, seededUrls } from './platforms';

/** What the conformance fixture `test_reconnection` answers once its client resumed. */
const RECONNECTED = 'Reconnection test completed successfully';
/** `long_operation` for 4 s in 8 steps: a progress event every 500 ms. */
const STEPS = 8;
const LONG_OPERATION = { name: 'long_operation', arguments: { seconds: 4, steps: STEPS } };
/** The progress event after which broker replica A goes away. */
const TAKE_DOWN_AFTER_STEP = 2;
/** Bounds every wait of a test: a call that is not resumed fails the test instead of hanging it. */
const CALL_TIMEOUT_MS = 30_000;

/** One request the client's transport sent, and to which broker replica. */
interface SentRequest {
  method: string;
  to: 'A' | 'B';
  lastEventId: string | undefined;
  at: number;
}

/**
 * A legacy SDK client (1.x) on broker replica A whose every request goes to A until the test reroutes
 * it, as a load balancer does once A is out of rotation; `resumeOnB` instead sends only resumption GETs
 * (with `Last-Event-ID`) to B, so any replica must resume a stream. Records what it sent where.
 */
async function openRoutedClient(urlA: string, urlB: string, options: { headers?: Record<string, string>; resumeOnB?: boolean } = {}) {
  const requests: SentRequest[] = [];
  let rerouted = false;
  const client = new LegacyClient({ name: 'e2e-stream-resumption', version: '1.0.0' });
  const transport = new LegacyTransport(new URL(urlA), {
    ...(options.headers ? { requestInit: { headers: options.headers } } : {}),
    fetch: (input, init) => {
      const method = init?.method ?? 'GET';
      const lastEventId = new Headers(init?.headers).get('last-event-id') ?? undefined;
      const to = rerouted || (options.resumeOnB === true && method === 'GET' && lastEventId !== undefined) ? 'B' : 'A';
      requests.push({ method, to, lastEventId, at: performance.now() });
      return fetch(to === 'B' ? urlB : input, init);
    },
  });
  await client.connect(transport);
  const errors: string[] = [];
  client.onerror = (error) => errors.push(error.message);
  return {
    client,
    requests,
    /** What the transport reported: a connection cut under a stream shows as `SSE stream disconnected`. */
    errors,
    /** From now on every request goes to replica B. */
    rerouteToB: () => {
      rerouted = true;
    },
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/** A promise and the function that resolves it. */
function milestone(): { reached: Promise<void>; reach: () => void } {
  let reach = (): void => undefined;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  return { reached, reach };
}

/** `promise`, or a rejection naming `what` after `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The two broker origins: two replicas in the distributed mode, the one origin twice in the embedded mode. */
function brokers(platform: Platform): [string, string] {
  const [first, second] = platform.mode === 'distributed' ? platform.brokerUrls : [platform.baseUrl, platform.baseUrl];
  if (first === undefined || second === undefined) throw new Error('the platform was booted with one broker replica');
  return [first, second];
}

/** Headers of a raw GET of the session, resuming after `lastEventId`. */
function resumeHeaders(session: LegacySession, lastEventId: string): Record<string, string> {
  return { accept: 'text/event-stream', 'mcp-session-id': session.sessionId, 'mcp-protocol-version': session.protocolVersion, 'last-event-id': lastEventId };
}

const takeDowns = [
  { name: 'is killed (SIGKILL)', signal: 'SIGKILL' },
  { name: 'drains in a rolling restart (SIGTERM)', signal: 'SIGTERM' },
] as const;

// spec S-85, S-90: a stream cut by a replica that goes away is not a cancellation; the client resumes it on any replica.
describe.each(takeDowns)('a call whose broker replica $name mid-call, distributed mode', ({ signal: takeDownSignal }) => {
  let platform: DistributedPlatform;
  let urlA: string;
  let urlB: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    const booted = await distributedMode(2).boot();
    if (booted.mode !== 'distributed') throw new Error('distributedMode booted an embedded platform');
    platform = booted;
    const [brokerA, brokerB] = brokers(platform);
    urlA = seededUrls(brokerA).demo;
    urlB = seededUrls(brokerB).demo;
    // Every broker replica shares one public URL, so the token's audience holds on broker B too.
    const token = await obtainToken({ issuer: platform.issuer, resource: urlA, scope: 'mcp', user: platform.demoUser });
    headers = { authorization: `Bearer ${token.access_token}` };
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it('the SDK client resumes the stream on the other replica with Last-Event-ID: every progress event once, in order, then the result', async () => {
    const routed = await openRoutedClient(urlA, urlB, { headers });
    try {
      const progress: Array<{ value: number; at: number }> = [];
      const tokens: Array<{ id: string; at: number }> = [];
      const takeDownPoint = milestone();
      const call = routed.client.callTool(LONG_OPERATION, undefined, {
        timeout: CALL_TIMEOUT_MS,
        onprogress: ({ progress: value }) => {
          progress.push({ value, at: performance.now() });
          if (value === TAKE_DOWN_AFTER_STEP) takeDownPoint.reach();
        },
        onresumptiontoken: (id) => tokens.push({ id, at: performance.now() }),
      });
      await within(takeDownPoint.reached, 10_000, `progress ${TAKE_DOWN_AFTER_STEP} of the call`);
      // The load balancer takes A out of rotation, then A goes away.
      routed.rerouteToB();
      const takenDownAt = performance.now();
      const exit = await within(platform.signalBroker(0, takeDownSignal), 15_000, `broker replica A to exit on ${takeDownSignal}`);
      if (takeDownSignal === 'SIGKILL') expect(exit.signal).toBe('SIGKILL');
      // A drained in time: the cluster did not have to SIGKILL it after its grace.
      else expect(exit.signal).not.toBe('SIGKILL');

      const result = await call;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ seconds: 4, steps: STEPS });
      expect(progress.map(({ value }) => value)).toEqual(Array.from({ length: STEPS }, (_, index) => index + 1));

      // One GET to B resumed the call's stream after the last event the client had; the call was never sent again.
      const resumes = routed.requests.filter((request) => request.method === 'GET' && tokens.some(({ id }) => id === request.lastEventId));
      expect(resumes).toHaveLength(1);
      const [resume] = resumes as [SentRequest];
      expect(resume.to).toBe('B');
      expect(resume.lastEventId).toBe(tokens.filter(({ at }) => at < resume.at).at(-1)?.id);
      expect(routed.requests.filter((request) => request.method === 'POST' && request.to === 'B')).toEqual([]);
      // Killed, A cut the connection; draining, it ended the stream itself, with `retry` (S-81).
      const cut = routed.errors.filter((message) => message.includes('SSE stream disconnected'));
      if (takeDownSignal === 'SIGKILL') expect(cut.length).toBeGreaterThan(0);
      else expect(cut).toEqual([]);
      // The progress after the resume came through B.
      expect(progress.some(({ at }) => at > resume.at)).toBe(true);
      // Resumed promptly: the client waits the server's `retry` (1 s), then asks B.
      expect(resume.at - takenDownAt).toBeLessThan(5_000);
    } finally {
      await routed.close();
    }
  });
});

const modes: PlatformMode[] = [embeddedMode(), distributedMode(2)];

describe.each(modes)('a call stream the broker closes mid-call (S-81), $name mode', (mode) => {
  let platform: Platform;
  let urlA: string;
  let urlB: string;

  beforeAll(async () => {
    platform = await mode.boot();
    const [brokerA, brokerB] = brokers(platform);
    urlA = seededUrls(brokerA).conformance;
    urlB = seededUrls(brokerB).conformance;
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it('test_reconnection completes for the SDK client, which resumes with GET Last-Event-ID (on the other replica)', async () => {
    const routed = await openRoutedClient(urlA, urlB, { resumeOnB: true });
    try {
      const result = await routed.client.callTool({ name: 'test_reconnection', arguments: {} }, undefined, { timeout: CALL_TIMEOUT_MS });
      expect(toolResultText(result)).toContain(RECONNECTED);
      const resumes = routed.requests.filter((request) => request.method === 'GET' && request.lastEventId !== undefined);
      expect(resumes).toHaveLength(1);
      expect(resumes[0]?.to).toBe('B');
    } finally {
      await routed.close();
    }
  });

  it('primes the stream, closes it with retry before the result, and a GET with the last id answers the result (raw HTTP, S-80, S-90)', async () => {
    const session = await openLegacySession(urlA, undefined, '2025-11-25');
    const cut = await sendRaw({
      url: urlA,
      headers: session.headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'test_reconnection', arguments: {} } }),
    });
    expect(cut.status).toBe(200);
    expect(cut.contentType).toContain('text/event-stream');
    const events = parseSse(cut.body);
    expect(events[0]?.id).toBeTruthy();
    expect(events[0]?.data).toBe('');
    expect(events.some((event) => event.retry !== undefined)).toBe(true);
    expect(sseMessages(cut.body)).not.toContainEqual(expect.objectContaining({ id: 7 }));
    const lastEventId = events.filter((event) => event.id !== undefined).at(-1)?.id as string;

    const resumed = await sendRaw({ url: urlB, method: 'GET', headers: resumeHeaders(session, lastEventId) });
    expect(resumed.status).toBe(200);
    expect(resumed.contentType).toContain('text/event-stream');
    const answer = resumed.messages?.find((message) => (message as { id?: unknown }).id !== undefined) as { id: unknown; result?: unknown } | undefined;
    expect(answer?.id).toBe(7);
    expect(toolResultText(answer?.result)).toContain(RECONNECTED);
  });

  it('refuses a Last-Event-ID of another session (400) and one of a stream it no longer keeps (410), on any replica', async () => {
    const owner = await openLegacySession(urlA, undefined, '2025-11-25');
    const other = await openLegacySession(urlA, undefined, '2025-11-25');
    const cut = await sendRaw({
      url: urlA,
      headers: owner.headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'test_reconnection', arguments: {} } }),
    });
    const ownersId = parseSse(cut.body).find((event) => event.id !== undefined)?.id as string;
    expect(ownersId).toBeTruthy();

    // spec S-90: never another session's stream.
    const foreign = await sendRaw({ url: urlB, method: 'GET', headers: resumeHeaders(other, ownersId) });
    expect(foreign.status).toBe(400);
    expect(foreign.messages).toMatchObject([{ error: { message: expect.stringContaining('Last-Event-ID') } }]);

    // The owner's id, but of a call stream opened in 1970 that left no event: older than any retention.
    const forgotten = ownersId.replace(/\.c[0-9a-z]{9}/, '.c000000000').replace(/:\d+$/, ':0');
    expect(forgotten).not.toBe(ownersId);
    const gone = await sendRaw({ url: urlB, method: 'GET', headers: resumeHeaders(owner, forgotten) });
    expect(gone.status).toBe(410);
    expect(gone.messages).toMatchObject([{ error: { message: expect.stringContaining('Gone') } }]);
  });
});

/** The first SSE event id a POST's response stream carries; the connection is then cut, as a network would. */
async function firstEventIdThenCut(url: string, headers: Record<string, string>, body: unknown): Promise<string> {
  const cut = new AbortController();
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: cut.signal });
  const reader = response.body?.getReader();
  if (!reader) throw new Error(`no response stream (HTTP ${response.status})`);
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (let reads = 0; reads < 1_000; reads += 1) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      const id = parseSse(text).find((event) => event.id !== undefined && event.data !== '')?.id;
      if (id) return id;
    }
    throw new Error(`the stream ended without an event id: ${text.slice(0, 500)}`);
  } finally {
    cut.abort();
  }
}

// Heartbeats (issue 15): the broker holding a call whose executor died ends the call's stream log too.
describe('a call whose tool executor is killed while its stream is resumed on the other broker replica, distributed mode', () => {
  let platform: DistributedPlatform;
  let urlA: string;
  let urlB: string;
  let authorization: string;

  beforeAll(async () => {
    const booted = await distributedMode(2).boot();
    if (booted.mode !== 'distributed') throw new Error('distributedMode booted an embedded platform');
    platform = booted;
    const [brokerA, brokerB] = brokers(platform);
    urlA = seededUrls(brokerA).demo;
    urlB = seededUrls(brokerB).demo;
    const token = await obtainToken({ issuer: platform.issuer, resource: urlA, scope: 'mcp', user: platform.demoUser });
    authorization = `Bearer ${token.access_token}`;
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it('ends the resumed stream with the error the broker holding the call gave it, instead of leaving it open', async () => {
    const session = await openLegacySession(urlA, undefined, '2025-11-25', { authorization });
    // spec S-85: the cut connection does not cancel the call; it goes on, logged.
    const lastEventId = await firstEventIdThenCut(urlA, session.headers, {
      jsonrpc: '2.0',
      id: 11,
      method: 'tools/call',
      params: { name: 'long_operation', arguments: { seconds: 60, steps: 60 }, _meta: { progressToken: 'p' } },
    });
    const resumed = sendRaw({ url: urlB, method: 'GET', headers: { ...resumeHeaders(session, lastEventId), authorization }, timeoutMs: 40_000 });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const exit = await within(platform.signalProcess('tool-executor', 'SIGKILL'), 15_000, 'the tool executor to exit on SIGKILL');
    expect(exit.signal).toBe('SIGKILL');
    try {
      const answer = (await resumed).messages?.find((message) => (message as { id?: unknown }).id === 11);
      // Broker A gave the call up after missed heartbeats, and B read that from the call's log.
      expect(answer).toMatchObject({ id: 11, error: { code: -32603, message: expect.stringContaining('unavailable') } });
    } finally {
      await platform.restartProcess('tool-executor');
    }
  });
});
