import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedAgent } from '@mcp-platform/shared-egress';
import { upstreamFetch, UpstreamResponseTooLarge } from '../src/upstreams/upstream-fetch';

/** What the upstream received, one entry per request. */
interface Received {
  method: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

const CAP = 64 * 1024;

/** The routes of the loopback upstream: each answers as one kind of upstream would. */
const ROUTES: Record<string, (response: ServerResponse) => void> = {
  '/json': (response) => response.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's-1' }).end('{"ok":true}'),
  '/moved': (response) => response.writeHead(307, { location: '/json' }).end(),
  '/accepted': (response) => response.writeHead(202).end(),
  '/empty': (response) => response.writeHead(204).end(),
  // Under the cap, in many writes: the reader lags behind the socket, which pauses and resumes.
  '/chunked': (response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let index = 0; index < 200; index += 1) response.write('y'.repeat(255) + '\n');
    response.end();
  },
  '/flood': (response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(`data: ${'x'.repeat(CAP)}\n\n`);
  },
  // Headers at once, then nothing: a stream the caller gives up on.
  '/stall': (response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(': open\n\n');
  },
  // No answer at all: the caller aborts before the headers.
  '/silent': () => undefined,
};

/**
 * The fetch the SDK's transports use for an upstream, against a real server on loopback: what a
 * standard fetch would answer (status, headers, body, errors), with the source's headers, no redirect
 * followed and the answer's cap.
 */
describe(upstreamFetch, () => {
  let server: Server;
  let base: string;
  let agent: Agent;
  const received: Received[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        received.push({ method: request.method, headers: request.headers, body });
        (ROUTES[request.url ?? ''] ?? ((answer: ServerResponse) => answer.writeHead(404).end('no such route')))(response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    agent = createGuardedAgent({ allowPrivateNetworks: true });
  });

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await agent?.close();
  });

  const fetchOf = (headers: Record<string, string> = {}) => upstreamFetch(agent, headers, CAP);

  it('POSTs the body with the SDK headers and the source headers (which win), and answers status, headers and body', async () => {
    const fetch = fetchOf({ Authorization: 'Bearer static', 'X-Tenant': 't-1' });
    const headers = new Headers({ 'content-type': 'application/json', authorization: 'Bearer sdk', accept: 'application/json, text/event-stream' });
    const response = await fetch(`${base}/json`, { method: 'POST', headers, body: '{"jsonrpc":"2.0"}' });
    expect(response.status).toBe(200);
    expect(response.statusText).toBe('OK');
    expect(response.headers.get('mcp-session-id')).toBe('s-1');
    await expect(response.json()).resolves.toEqual({ ok: true });
    expect(received.at(-1)).toMatchObject({
      method: 'POST',
      body: '{"jsonrpc":"2.0"}',
      headers: { authorization: 'Bearer static', 'x-tenant': 't-1', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    });
  });

  it('sends a form (an OAuth token request) encoded as fetch would', async () => {
    await (await fetchOf()(new URL(`${base}/json`), { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials' }) })).text();
    expect(received.at(-1)).toMatchObject({
      body: 'grant_type=client_credentials',
      headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
    });
  });

  it('hands a redirect back as it came, without following it', async () => {
    const response = await fetchOf()(`${base}/moved`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(307);
    expect(response.headers.get('location')).toBe('/json');
    expect(received.at(-1)?.method).toBe('POST');
  });

  it('answers 202 with an empty body and 204 with none', async () => {
    await expect((await fetchOf()(`${base}/accepted`, { method: 'POST', body: '{}' })).text()).resolves.toBe('');
    const empty = await fetchOf()(`${base}/empty`);
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it('reads a body that comes in many chunks whole, up to the cap', async () => {
    const text = await (await fetchOf()(`${base}/chunked`)).text();
    expect(text).toBe(('y'.repeat(255) + '\n').repeat(200));
  });

  it('errors the body of an answer past the cap', async () => {
    const response = await fetchOf()(`${base}/flood`);
    await expect(response.text()).rejects.toBeInstanceOf(UpstreamResponseTooLarge);
  });

  it('rejects with the signal reason when aborted before the headers, and at once when aborted already', async () => {
    const controller = new AbortController();
    const pending = fetchOf()(`${base}/silent`, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller left')), 50);
    await expect(pending).rejects.toThrow('caller left');
    await expect(fetchOf()(`${base}/json`, { signal: AbortSignal.abort(new Error('too late')) })).rejects.toThrow('too late');
  });

  it('errors an open stream with the signal reason when aborted while reading', async () => {
    const controller = new AbortController();
    const response = await fetchOf()(`${base}/stall`, { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort(new Error('call cancelled'));
    await expect(reader.read()).rejects.toThrow('call cancelled');
  });

  it('fails as fetch does when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const failure = await fetchOf()(`http://127.0.0.1:${port}/json`).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe('fetch failed');
    expect(((failure as TypeError).cause as { code?: string }).code).toBe('ECONNREFUSED');
  });
});
