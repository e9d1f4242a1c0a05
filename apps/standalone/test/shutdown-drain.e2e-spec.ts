import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DistributedPlatform, obtainToken } from '@mcp-platform/shared-testing';
import { distributedMode, embeddedMode, type Platform, seededUrls } from './platforms';

/** The SDK's own default: a client that is never answered waits this long, which the drain must spare it. */
const SDK_REQUEST_TIMEOUT_MS = 60_000;
/** The grace every platform here boots with. */
const GRACE_SECONDS = 3;
/** The answer of a call ended by a stopping server (the broker's, or the executor's, whichever comes first). */
const STOPPED = /shut down before the request finished|unavailable; retry later/;

/** One request the client's transport sent: its method, where to, and the resumption id it carried. */
interface Sent {
  method: string;
  to: 'A' | 'B';
  lastEventId: string | undefined;
}

/**
 * A legacy SDK client (1.x) of broker A that sends everything to B once `reroute()` was called (as a
 * load balancer does once A is out of rotation). With `protocolVersion`, its initialize asks for that
 * revision: the server negotiates it and the SDK accepts it (2025-06-18: no priming events, so a call's
 * answer stays plain JSON and cannot be resumed).
 */
async function legacyClient(urlA: string, urlB: string, headers: Record<string, string>, protocolVersion?: string) {
  const sent: Sent[] = [];
  let rerouted = false;
  const client = new LegacyClient({ name: 'e2e-drain', version: '1.0.0' });
  const transport = new LegacyTransport(new URL(urlA), {
    requestInit: { headers },
    fetch: (input, init) => {
      const method = init?.method ?? 'GET';
      const lastEventId = new Headers(init?.headers).get('last-event-id') ?? undefined;
      sent.push({ method, to: rerouted ? 'B' : 'A', lastEventId });
      let body = init?.body;
      if (protocolVersion && typeof body === 'string' && body.includes('"method":"initialize"')) {
        const message = JSON.parse(body) as { params: { protocolVersion: string } };
        message.params.protocolVersion = protocolVersion;
        body = JSON.stringify(message);
      }
      return fetch(rerouted ? urlB : input, { ...init, ...(body === undefined ? {} : { body }) });
    },
  });
  await client.connect(transport);
  return {
    client,
    transport,
    sent,
    reroute: () => {
      rerouted = true;
    },
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}

/** How long `promise` took to settle, and how. */
async function timed<T>(promise: Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const started = performance.now();
  try {
    const value = await promise;
    return { ms: performance.now() - started, value };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A new request and the readiness probe of a draining server: both refused at once. */
async function drainingAnswers(baseUrl: string, mcpUrl: string) {
  const ready = await fetch(`${baseUrl}/health/ready`);
  const refused = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'late',
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'late', version: '1' } },
    }),
  });
  return {
    ready: ready.status,
    refused: refused.status,
    retryAfter: refused.headers.get('retry-after'),
    body: (await refused.json()) as { id?: unknown; error?: { message?: string } },
  };
}

describe('shutdown drain, embedded mode', () => {
  let token: string;

  /** An embedded platform of its own (each test stops one), with the demo user's token. */
  async function bootOwn(): Promise<{ platform: Platform; url: string }> {
    const platform = await embeddedMode().boot({ shutdownGraceSeconds: GRACE_SECONDS });
    const url = seededUrls(platform.baseUrl).demo;
    token = (await obtainToken({ issuer: platform.issuer, resource: url, scope: 'mcp', user: platform.demoUser })).access_token;
    return { platform, url };
  }

  it('lets a legacy call running at stop finish within the grace: the SDK client gets its result, and new work is refused meanwhile', async () => {
    const { platform, url } = await bootOwn();
    const legacy = await legacyClient(url, url, { authorization: `Bearer ${token}` });
    const call = timed(legacy.client.callTool({ name: 'long_operation', arguments: { seconds: 2, steps: 2 } }));
    await pause(500);
    const stopping = platform.stop();
    await pause(200);
    const draining = await drainingAnswers(platform.baseUrl, seededUrls(platform.baseUrl).conformance);
    const outcome = await call;
    await stopping;
    expect(outcome.error).toBeUndefined();
    expect((outcome.value as { structuredContent?: unknown }).structuredContent).toEqual({ seconds: 2, steps: 2 });
    expect(draining).toMatchObject({
      ready: 503,
      refused: 503,
      retryAfter: '1',
      body: { id: 'late', error: { message: 'Service Unavailable: this server is shutting down; retry the request' } },
    });
    await legacy.close();
  });

  it('ends a legacy call that outlasts the grace with a clear JSON-RPC error, long before the client’s own timeout', async () => {
    const { platform, url } = await bootOwn();
    const legacy = await legacyClient(url, url, { authorization: `Bearer ${token}` });
    const call = timed(
      legacy.client.callTool({ name: 'long_operation', arguments: { seconds: 30, steps: 30 } }, undefined, { timeout: SDK_REQUEST_TIMEOUT_MS }),
    );
    await pause(1_000);
    const stopped = timed(platform.stop());
    const outcome = await call;
    expect(outcome.error).toBeInstanceOf(McpError);
    expect((outcome.error as McpError).code).toBe(-32603);
    expect((outcome.error as McpError).message).toMatch(STOPPED);
    // The grace, then the error: never the 60 s the client would otherwise wait.
    expect(outcome.ms).toBeGreaterThan(GRACE_SECONDS * 1_000 - 500);
    expect(outcome.ms).toBeLessThan(GRACE_SECONDS * 1_000 + 5_000);
    expect((await stopped).ms).toBeLessThan(GRACE_SECONDS * 1_000 + 5_000);
    console.log(`embedded: a call outlasting the ${GRACE_SECONDS} s grace got its error ${Math.round(outcome.ms)} ms after it started (stop began at 1 s)`);
    await legacy.close();
  });
});

describe('shutdown drain, distributed mode with two broker replicas', () => {
  let platform: DistributedPlatform;
  let urlA: string;
  let urlB: string;
  let auth: Record<string, string>;

  beforeAll(async () => {
    const booted = await distributedMode(2).boot({ shutdownGraceSeconds: GRACE_SECONDS });
    if (booted.mode !== 'distributed') throw new Error('distributedMode booted an embedded platform');
    platform = booted;
    const [brokerA, brokerB] = platform.brokerUrls;
    urlA = seededUrls(brokerA ?? '').demo;
    urlB = seededUrls(brokerB ?? '').demo;
    // Every replica shares one public URL, so the token's audience holds on B too.
    const token = await obtainToken({ issuer: platform.issuer, resource: urlA, scope: 'mcp', user: platform.demoUser });
    auth = { authorization: `Bearer ${token.access_token}` };
  });

  afterAll(async () => {
    await platform?.stop();
  });

  /** Starts broker A again after a test took it down. */
  async function restartA(): Promise<void> {
    await platform.restartProcess('session-broker-1');
  }

  it('hands a resumable call to the other replica at SIGTERM: the SDK client resumes on B with Last-Event-ID and gets the result', async () => {
    const legacy = await legacyClient(urlA, urlB, auth);
    // No progress asked: the call's stream carries nothing but its priming event until the result.
    const call = timed(legacy.client.callTool({ name: 'long_operation', arguments: { seconds: 4, steps: 4 } }, undefined, { timeout: SDK_REQUEST_TIMEOUT_MS }));
    await pause(1_500);
    legacy.reroute();
    const exit = await platform.signalBroker(0, 'SIGTERM');
    const outcome = await call;
    expect(exit.signal).not.toBe('SIGKILL');
    expect(outcome.error).toBeUndefined();
    expect((outcome.value as { structuredContent?: unknown }).structuredContent).toEqual({ seconds: 4, steps: 4 });
    console.log(`distributed: a 4 s call handed over at SIGTERM (1.5 s) got its result from B after ${Math.round(outcome.ms)} ms`);
    const resumed = legacy.sent.filter((request) => request.method === 'GET' && request.lastEventId !== undefined);
    expect(resumed.length).toBeGreaterThanOrEqual(1);
    expect(resumed.every((request) => request.to === 'B')).toBe(true);
    expect(legacy.sent.filter((request) => request.method === 'POST' && request.to === 'B' && request.lastEventId === undefined).length).toBeLessThanOrEqual(1);
    await legacy.close();
    await restartA();
  });

  it('lets a call it cannot hand over (a 2025-06-18 session: plain JSON) finish within the grace, refusing new work and failing readiness meanwhile', async () => {
    const legacy = await legacyClient(urlA, urlB, auth, '2025-06-18');
    expect(legacy.transport.protocolVersion).toBe('2025-06-18');
    const call = timed(legacy.client.callTool({ name: 'long_operation', arguments: { seconds: 2, steps: 2 } }));
    await pause(500);
    const exited = platform.signalBroker(0, 'SIGTERM');
    await pause(200);
    const draining = await drainingAnswers(platform.brokerUrls[0] ?? '', urlA);
    const outcome = await call;
    expect(outcome.error).toBeUndefined();
    expect((outcome.value as { structuredContent?: unknown }).structuredContent).toEqual({ seconds: 2, steps: 2 });
    expect(draining).toMatchObject({ ready: 503, refused: 503, retryAfter: '1' });
    expect((await exited).signal).not.toBe('SIGKILL');
    await legacy.close();
    await restartA();
  });

  it('ends such a call still running after the grace with a JSON-RPC error (503, Retry-After), not a 60 s wait', async () => {
    const legacy = await legacyClient(urlA, urlB, auth, '2025-06-18');
    const call = timed(
      legacy.client.callTool({ name: 'long_operation', arguments: { seconds: 30, steps: 30 } }, undefined, { timeout: SDK_REQUEST_TIMEOUT_MS }),
    );
    await pause(500);
    const exited = platform.signalBroker(0, 'SIGTERM');
    const outcome = await call;
    expect(outcome.error).toBeInstanceOf(StreamableHTTPError);
    expect((outcome.error as StreamableHTTPError).code).toBe(503);
    expect((outcome.error as StreamableHTTPError).message).toMatch(STOPPED);
    expect(outcome.ms).toBeLessThan(GRACE_SECONDS * 1_000 + 5_000);
    expect((await exited).signal).not.toBe('SIGKILL');
    console.log(
      `distributed: a plain-JSON call outlasting the ${GRACE_SECONDS} s grace got 503 ${Math.round(outcome.ms)} ms after it started (SIGTERM at 0.5 s)`,
    );
    await legacy.close();
    await restartA();
  });

  it('drains the tool executor too: a call in flight at its SIGTERM finishes within the grace, one outlasting it ends with an error the client sees', async () => {
    const legacy = await legacyClient(urlB, urlB, auth, '2025-06-18');
    const finishing = timed(legacy.client.callTool({ name: 'long_operation', arguments: { seconds: 2, steps: 2 } }));
    const outlasting = timed(
      legacy.client.callTool({ name: 'long_operation', arguments: { seconds: 30, steps: 30 } }, undefined, { timeout: SDK_REQUEST_TIMEOUT_MS }),
    );
    await pause(500);
    const exited = platform.signalProcess('tool-executor', 'SIGTERM');
    const [finished, ended] = await Promise.all([finishing, outlasting]);
    expect(finished.error).toBeUndefined();
    expect((finished.value as { structuredContent?: unknown }).structuredContent).toEqual({ seconds: 2, steps: 2 });
    expect(ended.error).toBeInstanceOf(McpError);
    expect((ended.error as McpError).message).toMatch(STOPPED);
    expect(ended.ms).toBeLessThan(GRACE_SECONDS * 1_000 + 5_000);
    expect((await exited).signal).not.toBe('SIGKILL');
    console.log(
      `distributed: with the executor draining, a 2 s call finished in ${Math.round(finished.ms)} ms, a 30 s one ended with its error in ${Math.round(ended.ms)} ms`,
    );
    await legacy.close();
    await platform.restartProcess('tool-executor');
  });
});
