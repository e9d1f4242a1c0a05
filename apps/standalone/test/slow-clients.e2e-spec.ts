import { connect, type Socket } from 'node:net';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LegacySession, obtainToken, openLegacySession } from '@mcp-platform/shared-testing';
import { distributedMode, embeddedMode, type Platform, seededUrls } from './platforms';

/** Short timeouts, so the test takes seconds: the headers within 2 s, the whole request within 3 s. */
const HEADERS_TIMEOUT_SECONDS = 2;
const REQUEST_TIMEOUT_SECONDS = 3;
/** The server looks for expired connections every second; the rest is this machine's load. */
const CLOSE_MARGIN_MS = 3_000;
const SLOW_LORIS_CONNECTIONS = 200;
/** How often a slow-loris client sends its next byte: often enough that no idle timeout ever fires. */
const TRICKLE_MS = 400;
/** How long a slow-loris connection waits for the server to close it before it gives up (and the test fails). */
const GIVE_UP_MS = 15_000;
/** A call that streams progress for longer than any of the timeouts. */
const LONG_CALL = { name: 'long_operation', arguments: { seconds: 8, steps: 8 } };

/** How one slow-loris connection behaves: sends nothing, trickles its headers, or trickles a body that never ends. */
type Loris = 'silent' | 'headers' | 'body';

/** One slow-loris connection: when the server closed it, counted from when it connected. */
function slowLoris(url: URL, kind: Loris): Promise<{ kind: Loris; closedAfterMs: number; answer: string }> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(url.port), url.hostname);
    let opened = 0;
    let answer = '';
    let trickle: NodeJS.Timeout | undefined;
    // A server that never closes it: the connection reports so (never closed) and goes.
    const giveUp = setTimeout(() => {
      clearInterval(trickle);
      resolve({ kind, closedAfterMs: Number.POSITIVE_INFINITY, answer });
      socket.destroy();
    }, GIVE_UP_MS);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.once('connect', () => {
      opened = Date.now();
      if (kind === 'silent') return;
      const head = `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n`;
      socket.write(kind === 'headers' ? head : `${head}Content-Length: 1000000\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`);
      trickle = setInterval(() => socket.write(kind === 'headers' ? 'X' : 'x'), TRICKLE_MS);
    });
    socket.once('close', () => {
      clearInterval(trickle);
      clearTimeout(giveUp);
      resolve({ kind, closedAfterMs: Date.now() - opened, answer: answer.split('\r\n')[0] ?? '' });
    });
    socket.once('error', (error) => {
      clearInterval(trickle);
      clearTimeout(giveUp);
      // A reset after the server gave up on us is a close too.
      if (opened > 0) resolve({ kind, closedAfterMs: Date.now() - opened, answer });
      else reject(error);
    });
  });
}

describe.each([embeddedMode(), distributedMode(1)])('slow clients, $name mode', (mode) => {
  let platform: Platform;
  let urls: { demo: string; conformance: string };
  let auth: Record<string, string>;

  beforeAll(async () => {
    platform = await mode.boot({ httpTimeouts: { headersSeconds: HEADERS_TIMEOUT_SECONDS, requestSeconds: REQUEST_TIMEOUT_SECONDS } });
    urls = seededUrls(platform.baseUrl);
    const token = await obtainToken({ issuer: platform.issuer, resource: urls.demo, scope: 'mcp', user: platform.demoUser });
    auth = { authorization: `Bearer ${token.access_token}` };
  });

  afterAll(async () => {
    await platform?.stop();
  });

  it(`closes ${SLOW_LORIS_CONNECTIONS} slow-loris connections within the timeouts, while a normal client is served and streams opened before stay open`, async () => {
    // Opened before the attack: a GET stream, and a call that streams progress for 8 s (longer than both timeouts).
    const session: LegacySession = await openLegacySession(urls.conformance);
    const getStream = await fetch(urls.conformance, { headers: { ...session.headers, accept: 'text/event-stream' } });
    expect(getStream.status).toBe(200);
    let getStreamEnded = false;
    const reading = (async () => {
      const reader = (getStream.body as ReadableStream<Uint8Array>).getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read());
      getStreamEnded = true;
    })().catch(() => (getStreamEnded = true));
    const client = new LegacyClient({ name: 'e2e-slow-clients', version: '1.0.0' });
    const transport = new LegacyTransport(new URL(urls.demo), { requestInit: { headers: auth } });
    await client.connect(transport);
    const progress: number[] = [];
    const longCall = client.callTool(LONG_CALL, undefined, { timeout: 30_000, onprogress: ({ progress: value }) => void progress.push(value) });

    const kinds: Loris[] = Array.from({ length: SLOW_LORIS_CONNECTIONS }, (_, index) => (['silent', 'headers', 'body'] as const)[index % 3] ?? 'body');
    const attack = Promise.all(kinds.map((kind) => slowLoris(new URL(urls.conformance), kind)));

    // A normal client keeps being served meanwhile.
    const served: number[] = [];
    const until = Date.now() + (REQUEST_TIMEOUT_SECONDS + 1) * 1_000;
    while (Date.now() < until) {
      const started = Date.now();
      const ping = await fetch(urls.conformance, {
        method: 'POST',
        headers: session.headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: served.length, method: 'ping' }),
      });
      expect(ping.status).toBe(200);
      await ping.text();
      served.push(Date.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(served.length).toBeGreaterThan(5);

    const closed = await attack;
    const slowest = { silent: 0, headers: 0, body: 0 };
    for (const { kind, closedAfterMs } of closed) slowest[kind] = Math.max(slowest[kind], closedAfterMs);
    console.log(`${mode.name}: slow-loris connections closed after at most ${JSON.stringify(slowest)} ms; pings took at most ${Math.max(...served)} ms`);
    // Nothing the server was sent completed a request: each got a 408 (or nothing, for the silent ones) and was closed.
    for (const { answer } of closed) expect(['', 'HTTP/1.1 408 Request Timeout']).toContain(answer);
    expect(slowest.silent).toBeLessThan(HEADERS_TIMEOUT_SECONDS * 1_000 + CLOSE_MARGIN_MS);
    expect(slowest.headers).toBeLessThan(HEADERS_TIMEOUT_SECONDS * 1_000 + CLOSE_MARGIN_MS);
    expect(slowest.body).toBeLessThan(REQUEST_TIMEOUT_SECONDS * 1_000 + CLOSE_MARGIN_MS);

    // The answers that stream outlive the timeouts: the call's, to its result, and the GET stream.
    const result = await longCall;
    expect(result.structuredContent).toEqual({ seconds: 8, steps: 8 });
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(getStreamEnded).toBe(false);
    await transport.terminateSession().catch(() => undefined);
    await client.close();
    await fetch(urls.conformance, { method: 'DELETE', headers: session.headers });
    await reading;
  });
});
