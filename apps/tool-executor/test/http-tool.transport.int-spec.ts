import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UndiciHttpToolTransport } from '../src/http-tools/http-tool.transport';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../src/http-tools/http-tools.constants';

/** What the endpoint received, one entry per request. */
interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * The request the platform sends an HTTP tool's endpoint, against a real server on loopback: what the
 * tool executor's README (HTTP tools) and the admin API's OpenAPI document promise.
 */
describe(UndiciHttpToolTransport, () => {
  let server: Server;
  let base: string;
  let transport: UndiciHttpToolTransport;
  const received: Received[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        received.push({ method: request.method, url: request.url, headers: request.headers, body });
        if (request.url?.startsWith('/redirect')) {
          response.writeHead(302, { location: '/elsewhere' }).end();
          return;
        }
        if (request.url?.startsWith('/big')) {
          response.end('x'.repeat(DEFAULT_MAX_RESPONSE_BYTES + 1));
          return;
        }
        response.setHeader('content-type', 'application/json');
        response.end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    transport = new UndiciHttpToolTransport({ allowPrivateNetworks: true, timeoutMs: 5_000, maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES });
  });

  afterAll(async () => {
    await transport?.onModuleDestroy();
    await new Promise((resolve) => server?.close(resolve));
  });

  const post = (path: string, headers: Record<string, string> = {}) =>
    transport.post(new URL(`${base}${path}`), JSON.stringify({ city: 'Oslo' }), headers, AbortSignal.timeout(5_000), DEFAULT_MAX_RESPONSE_BYTES);

  it('POSTs the arguments as JSON to the URL as configured, with the documented headers and the configured ones, and nothing about the caller', async () => {
    const answer = await post('/weather?units=metric', { 'x-api-key': 'k-1' });
    expect(answer).toEqual({ status: 200, contentType: 'application/json', body: '{"ok":true}', truncated: false });
    const request = received.at(-1);
    expect(request).toMatchObject({ method: 'POST', url: '/weather?units=metric', body: '{"city":"Oslo"}' });
    expect(request?.headers).toEqual({
      host: new URL(base).host,
      connection: 'keep-alive',
      'content-type': 'application/json',
      accept: 'application/json, text/plain;q=0.9, */*;q=0.1',
      'content-length': String('{"city":"Oslo"}'.length),
      'x-api-key': 'k-1',
    });
  });

  it('does not follow a redirect: the 3xx is the answer', async () => {
    const before = received.length;
    await expect(post('/redirect')).resolves.toMatchObject({ status: 302 });
    expect(received.slice(before).map((request) => request.url)).toEqual(['/redirect']);
  });

  it('stops reading an answer over 1 MiB and says it was cut', async () => {
    await expect(post('/big')).resolves.toMatchObject({ status: 200, body: '', truncated: true });
  });
});
