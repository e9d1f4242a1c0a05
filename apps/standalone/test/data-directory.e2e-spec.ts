import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  bootEmbedded,
  createThrowawayDatabase,
  deleteBucketsWithPrefix,
  type EmbeddedPlatform,
  findRepoRoot,
  getFreePort,
  modernHeaders,
  modernMeta,
  OAuthBrowser,
  type OAuthTestClient,
  obtainToken,
  ProcessTracker,
  responseMessage,
  sendRaw,
  testInfrastructure,
  type ThrowawayDatabase,
  uniqueRunId,
  waitForHttpOk,
  waitUntil,
} from '@mcp-platform/shared-testing';
import { startStandalone } from '../src/index';
import { AdminApi, uniqueTenant } from './admin-api';
import { seededUrls } from './platforms';

const root = findRepoRoot();
const tracker = new ProcessTracker();
const folders: string[] = [];
const ADMIN = { username: 'persistence-admin', password: 'persistence-admin-password' };

/** A fresh folder for one test's data directory (removed after the file). */
function freshFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'mcp-data-'));
  folders.push(folder);
  return folder;
}

/** The embedded platform in this process on `port` (fixed: token audiences name it), keeping its data in `dataDir`. */
function boot(port: number, dataDir?: string): Promise<EmbeddedPlatform> {
  return bootEmbedded(startStandalone, { port, logLevel: 'silent', adminUser: ADMIN, ...(dataDir === undefined ? {} : { dataDir }) });
}

/** A modern `tools/list` with a bearer token: the smallest authorized MCP request. */
async function listToolsWith(url: string, token: string): Promise<{ status: number; tools: unknown }> {
  const answer = await sendRaw({
    url,
    headers: { ...modernHeaders('tools/list'), authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta() } }),
  });
  const result = responseMessage(answer)?.result as { tools?: unknown } | undefined;
  return { status: answer.status, tools: result?.tools };
}

afterAll(async () => {
  await tracker.stopAll();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

describe('the embedded data directory', () => {
  it('keeps registered clients, tenants, users, the demo password and the signing keys across a restart', async () => {
    const dataDir = freshFolder();
    const port = await getFreePort();
    const tenant = uniqueTenant('persist');
    const member = { username: `${tenant}-member`, password: `pw-${tenant}-0123456789` };

    const first = await boot(port, dataDir);
    let client: OAuthTestClient;
    let accessToken: string;
    const demoPassword = first.demoUser.password;
    try {
      const demoUrl = seededUrls(first.baseUrl).demo;
      const token = await obtainToken({ issuer: first.issuer, resource: demoUrl, scope: 'mcp', user: first.demoUser });
      client = token.client;
      accessToken = token.access_token;
      const admin = await AdminApi.signIn(first, ADMIN);
      await admin.expect(201, 'POST', '/tenants', { slug: tenant, name: 'Kept across restarts' });
      await admin.expect(201, 'POST', `/tenants/${tenant}/users`, { ...member, roles: ['member'] });
    } finally {
      await first.stop();
    }
    // spec: a generated secret is the operator's only copy: owner-only.
    expect(readFileSync(join(dataDir, 'demo-user-password'), 'utf8').trim()).toBe(demoPassword);
    expect(statSync(join(dataDir, 'demo-user-password')).mode & 0o777).toBe(0o600);

    const second = await boot(port, dataDir);
    try {
      expect(second.demoUser.password).toBe(demoPassword);
      const demoUrl = seededUrls(second.baseUrl).demo;
      // Signed before the restart: the keys that signed it were kept.
      expect(await listToolsWith(demoUrl, accessToken)).toMatchObject({ status: 200, tools: expect.any(Array) });
      // The client registered before the restart still signs the demo user in, with the same password.
      const outcome = await client.authorize(new OAuthBrowser(), { username: 'demo', password: demoPassword }, { resource: demoUrl, scope: 'mcp' });
      expect(outcome.error, outcome.callback.href).toBeUndefined();
      const exchanged = await client.exchangeCode(outcome.code ?? '', {
        ...(outcome.verifier === undefined ? {} : { verifier: outcome.verifier }),
        resource: demoUrl,
      });
      expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
      const admin = await AdminApi.signIn(second, ADMIN);
      expect((await admin.request('GET', `/tenants/${tenant}`)).status).toBe(200);
      const users = (await admin.expect(200, 'GET', `/tenants/${tenant}/users`)).body as { items?: { username: string }[] } | { username: string }[];
      expect(JSON.stringify(users)).toContain(member.username);
    } finally {
      await second.stop();
    }
  });

  it('keeps nothing with memory:// (no directory)', async () => {
    const port = await getFreePort();
    const tenant = uniqueTenant('gone');
    const first = await boot(port);
    const password = first.demoUser.password;
    try {
      await (await AdminApi.signIn(first, ADMIN)).expect(201, 'POST', '/tenants', { slug: tenant, name: 'Gone at restart' });
    } finally {
      await first.stop();
    }
    const second = await boot(port);
    try {
      expect(second.demoUser.password).not.toBe(password);
      expect((await (await AdminApi.signIn(second, ADMIN)).request('GET', `/tenants/${tenant}`)).status).toBe(404);
    } finally {
      await second.stop();
    }
  });

  it('refuses a second process on a directory in use, at once and clearly, while the first keeps serving', async () => {
    const dataDir = freshFolder();
    const first = await boot(await getFreePort(), dataDir);
    try {
      const second = tracker.start('second standalone', process.execPath, [join(root, 'apps', 'standalone', 'dist', 'main.js')], {
        cwd: root,
        env: { PATH: process.env['PATH'] ?? '', DATA_DIR: dataDir, PORT: String(await getFreePort()) },
      });
      expect(await second.exited).toBe(1);
      expect(second.output()).toContain(`data directory ${dataDir} is in use by process ${process.pid}`);
      expect(second.output()).not.toMatch(/^\s+at \S/m);
      await waitForHttpOk(`${first.baseUrl}/health/ready`, { timeoutMs: 5_000 });
    } finally {
      await first.stop();
    }
    // Released at stop: the next start on it succeeds.
    const again = await boot(await getFreePort(), dataDir);
    await again.stop();
  });

  it('is ./data by default (npm start), and the same demo password is printed at every start', async () => {
    const cwd = freshFolder();
    const passwords: string[] = [];
    for (const run of [1, 2]) {
      const started = tracker.start(`standalone run ${run}`, process.execPath, [join(root, 'apps', 'standalone', 'dist', 'main.js')], {
        cwd,
        env: { PATH: process.env['PATH'] ?? '', PORT: String(await getFreePort()), LOG_LEVEL: 'warn' },
      });
      const banner = await waitUntil(async () => (/Stop it with Ctrl\+C/.test(started.output()) ? started.output() : undefined), {
        timeoutMs: 90_000,
        description: 'the ready banner',
      });
      expect(banner).toContain(`Data directory: ${join(cwd, 'data')}`);
      passwords.push(/demo user +demo \/ (\S+)/.exec(banner)?.[1] ?? '');
      await tracker.stop(started, 20_000);
    }
    expect(passwords[0]).toMatch(/^\S{12,}$/);
    expect(passwords[1]).toBe(passwords[0]);
    expect(existsSync(join(cwd, 'data', 'pglite', 'PG_VERSION'))).toBe(true);
    expect(statSync(join(cwd, 'data')).mode & 0o777).toBe(0o700);
    expect(existsSync(join(cwd, 'data', 'platform.lock')), 'the lock is released at stop').toBe(false);
  });
});

describe('the distributed demo password (npm run start:cluster)', () => {
  const infrastructure = testInfrastructure();
  const prefix = `e2e_pw_${uniqueRunId()}`;
  let database: ThrowawayDatabase | undefined;

  afterAll(async () => {
    await database?.drop();
    await deleteBucketsWithPrefix(infrastructure.natsUrl, prefix);
  });

  it('is kept in the data directory (owner-only) and printed again at the next start', async () => {
    database = await createThrowawayDatabase(infrastructure.databaseUrl, 'mcp_e2e_pw');
    const dataDir = freshFolder();
    const env = {
      PATH: process.env['PATH'] ?? '',
      DATABASE_URL: database.url,
      NATS_URL: infrastructure.natsUrl,
      NATS_SUBJECT_PREFIX: prefix,
      NATS_BUCKET_PREFIX: prefix,
      CLUSTER_PORTS: 'free',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    };
    const passwords: string[] = [];
    for (const run of [1, 2]) {
      const cluster = tracker.start(`start:cluster run ${run}`, process.execPath, [join(root, 'tools', 'dev-cluster.mjs')], { cwd: root, env });
      const banner = await waitUntil(async () => (/Stop it with Ctrl\+C/.test(cluster.output()) ? cluster.output() : undefined), {
        timeoutMs: 120_000,
        description: 'the ready banner',
      });
      passwords.push(/demo user +demo \/ (\S+)/.exec(banner)?.[1] ?? '');
      // SIGTERM: the script stops its five apps, then itself.
      process.kill(cluster.pid, 'SIGTERM');
      expect(await cluster.exited).toBe(0);
    }
    expect(passwords[0]).toMatch(/^\S{12,}$/);
    expect(passwords[1]).toBe(passwords[0]);
    expect(readFileSync(join(dataDir, 'demo-user-password'), 'utf8').trim()).toBe(passwords[0]);
    expect(statSync(join(dataDir, 'demo-user-password')).mode & 0o777).toBe(0o600);
  });
});
