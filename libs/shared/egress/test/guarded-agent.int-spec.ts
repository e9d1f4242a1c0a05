import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedAgent, findSsrfRefusal, readLimitedBody } from '../src';

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

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'egress-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    caPem = readFileSync(join(dir, 'cert.pem'), 'utf8');
    const handler = (request: IncomingMessage, response: ServerResponse) => {
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
