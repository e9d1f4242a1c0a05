import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkOutboundUrl, createGuardedAgent, type EgressPolicy, findSsrfRefusal, readLimitedBody, type Resolver, SsrfRefusedError } from '../src';

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

describe(createGuardedAgent, () => {
  let dir: string;
  let caPem: string;
  let http: Server;
  let https: Server;
  let httpPort: number;
  let httpsPort: number;
  /** Requests the test servers received: a refused call must leave this unchanged. */
  let received = 0;

  /** An outbound call as the HTTP tools and the CIMD fetcher make it: the URL checked, then a request through the guarded agent. */
  async function guardedRequest(url: string, policy: EgressPolicy, resolve?: Resolver): Promise<unknown> {
    const agent = createGuardedAgent(policy, resolve ? { resolve } : {});
    try {
      const response = await request(checkOutboundUrl(url, policy), { dispatcher: agent, maxRedirections: 0 });
      await response.body.dump();
      return response.statusCode;
    } catch (error) {
      return error;
    } finally {
      await agent.close();
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'egress-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    caPem = readFileSync(join(dir, 'cert.pem'), 'utf8');
    const handler = (request: IncomingMessage, response: ServerResponse) => {
      received++;
      if (request.url === '/redirect') {
        response.writeHead(302, { location: '/big' }).end();
        return;
      }
      response.end(request.url === '/big' ? 'x'.repeat(10_000) : 'hello');
    };
    http = createHttpServer(handler);
    https = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: caPem }, handler);
    [httpPort, httpsPort] = await Promise.all([listen(http), listen(https)]);
  });

  afterAll(async () => {
    await Promise.all([new Promise((resolve) => http.close(resolve)), new Promise((resolve) => https.close(resolve))]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a host name that resolves to loopback', async () => {
    const agent = createGuardedAgent({});
    const error = await request(`http://localhost:${httpPort}/`, { dispatcher: agent }).catch((caught: unknown) => caught);
    expect(findSsrfRefusal(error)?.message).toMatch(/localhost resolves to .*not a public address/);
    await agent.close();
  });

  it.each([
    ['IPv4-compatible loopback', '[::127.0.0.1]'],
    ['IPv4-compatible loopback, hexadecimal', '[::7f00:1]'],
    ['IPv4-translated loopback', '[::ffff:0:127.0.0.1]'],
    ['NAT64 of loopback', '[64:ff9b::127.0.0.1]'],
    ['6to4 of loopback', '[2002:7f00:1::1]'],
  ])('refuses an IPv6 literal that carries a loopback address (%s) before connecting', async (_form, host) => {
    const before = received;
    const error = await guardedRequest(`http://${host}:${httpPort}/`, {});
    expect(error).toBeInstanceOf(SsrfRefusedError);
    expect((error as Error).message).toMatch(/not a public address/);
    expect(received).toBe(before);
  });

  it.each(['::127.0.0.1', '::7f00:1', '64:ff9b::7f00:1'])('refuses a host name whose AAAA answer is %s', async (address) => {
    const before = received;
    const resolveTo: Resolver = (_hostname, callback) => callback(null, [{ address, family: 6 }]);
    const error = await guardedRequest(`http://tools.example.com:${httpPort}/`, {}, resolveTo);
    expect(findSsrfRefusal(error)?.message).toMatch(/tools\.example\.com resolves to .*not a public address/);
    expect(received).toBe(before);
  });

  it('connects to a listed host and trusts the extra CA for HTTPS', async () => {
    const agent = createGuardedAgent({ allowedHosts: ['localhost'] }, { caPem });
    const response = await request(`https://localhost:${httpsPort}/`, { dispatcher: agent });
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toBe('hello');
    await agent.close();
  });

  it('does not trust a self-signed certificate without the extra CA', async () => {
    const agent = createGuardedAgent({ allowedHosts: ['localhost'] });
    await expect(request(`https://localhost:${httpsPort}/`, { dispatcher: agent })).rejects.toThrow(/self-signed|certificate/i);
    await agent.close();
  });

  it('follows no redirect', async () => {
    const agent = createGuardedAgent({ allowedHosts: ['localhost'] });
    const response = await request(`http://localhost:${httpPort}/redirect`, { dispatcher: agent, maxRedirections: 0 });
    expect(response.statusCode).toBe(302);
    await response.body.dump();
    await agent.close();
  });
});

describe(readLimitedBody, () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createHttpServer((_request, response) => response.end('y'.repeat(100_000)));
    port = await listen(server);
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('stops reading past the cap', async () => {
    const response = await request(`http://127.0.0.1:${port}/`);
    const read = await readLimitedBody(response.body, 5 * 1024);
    expect(read.truncated).toBe(true);
    expect(read.body.length).toBeLessThanOrEqual(5 * 1024);
  });

  it('reads a body within the cap whole', async () => {
    const response = await request(`http://127.0.0.1:${port}/`);
    const read = await readLimitedBody(response.body, 200_000);
    expect(read).toMatchObject({ truncated: false });
    expect(read.body.length).toBe(100_000);
  });
});
