#!/usr/bin/env node
// `npm run test:conformance`: the official MCP conformance suites against the platform, in both modes.
// Installs the suites on first use (suite.mjs: @modelcontextprotocol/conformance with the TypeScript SDK
// client it drives, and Node 22 when this Node is older, from the npm registry into a cache), starts the
// embedded platform (`node apps/standalone/dist/main.js` on a free port, in memory), then the distributed
// platform (five processes over the real NATS and PostgreSQL, a throwaway database, two broker replicas
// behind a round-robin proxy so that every request lands on the other replica than the one before), and
// runs against `<base>/conformance/everything/mcp` in each:
// - the current suite (0.1.16): the active suite with the baseline in expected-failures.yml, then the
//   pending `json-schema-2020-12` scenario, then the pending `server-sse-polling` scenario strictly;
// - the newest suite (0.2.0-alpha.12): every server scenario at both wires (the 2025-11-25 handshake and
//   the stateless 2026-07-28 wire, the tasks and skills extensions included), strictly (a WARNING or a
//   pass on a missing fixture fails a scenario), with the baseline in expected-failures-next.yml.
// - and, in mode `federated`, the same suites through federation: a gateway platform serving the
//   conformance server of another platform process as an upstream source without a prefix, with its own
//   baseline for the newest suite (expected-failures-federated.yml).
// Environment: CONFORMANCE_MODES (default `embedded,distributed,federated`), CONFORMANCE_SUITES (default
// `current,next`), CONFORMANCE_CACHE (default node_modules/.cache/mcp-conformance; point it at a filled
// cache to run offline), CONFORMANCE_VERSION, CONFORMANCE_NEXT_VERSION and CONFORMANCE_SDK_VERSION (the
// suite and SDK versions; defaults in suite.mjs).
// Builds nothing (run `npm run build` first; `npm test` does). Exits 1 on any unexpected failure or
// stale baseline entry, 2 when it cannot run; stops every process it started, by pid.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DEFAULT_SDK_VERSION,
  DEFAULT_SUITE_VERSION,
  defaultCacheDir,
  installSuite,
  NEXT_SUITE_VERSION,
  parseWireBaseline,
  runBothWires,
  runLeg,
} from './suite.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const baseline = join(root, 'tools', 'conformance', 'expected-failures.yml');
const nextBaseline = join(root, 'tools', 'conformance', 'expected-failures-next.yml');
const federatedBaseline = join(root, 'tools', 'conformance', 'expected-failures-federated.yml');
const standaloneMain = join(root, 'apps', 'standalone', 'dist', 'main.js');
const virtualServerPath = '/conformance/everything/mcp';
const modes = (process.env.CONFORMANCE_MODES ?? 'embedded,distributed,federated').split(',').map((mode) => mode.trim());
const cacheDir = resolve(process.env.CONFORMANCE_CACHE || defaultCacheDir(root));
const suites = (process.env.CONFORMANCE_SUITES ?? 'current,next').split(',').map((name) => name.trim());
const version = process.env.CONFORMANCE_VERSION || DEFAULT_SUITE_VERSION;
const nextVersion = process.env.CONFORMANCE_NEXT_VERSION || NEXT_SUITE_VERSION;
const sdkVersion = process.env.CONFORMANCE_SDK_VERSION || DEFAULT_SDK_VERSION;
const resultsRoot = join(root, 'tmp', 'conformance', new Date().toISOString().replace(/[:.]/g, '-'));

function fail(message) {
  console.error(`conformance: ${message}`);
  process.exit(2);
}

if (!existsSync(standaloneMain)) fail(`${relative(root, standaloneMain)} is missing: run \`npm run build\` first`);

for (const name of suites) if (name !== 'current' && name !== 'next') fail(`unknown suite "${name}" in CONFORMANCE_SUITES (current, next)`);

async function install(suiteVersion) {
  try {
    const installed = await installSuite({ cacheDir, version: suiteVersion, sdkVersion, log: (line) => console.log(`conformance: ${line}`) });
    console.log(
      `conformance: @modelcontextprotocol/conformance@${installed.version} with @modelcontextprotocol/sdk@${installed.sdkVersion ?? "the suite's range"}, run by ${installed.node === process.execPath ? `this node (${process.version})` : installed.node}`,
    );
    return installed;
  } catch (error) {
    return fail(`cannot install the conformance suite ${suiteVersion} (set CONFORMANCE_CACHE to a filled cache to run offline): ${error.message}`);
  }
}
const suite = suites.includes('current') ? await install(version) : undefined;
const next = suites.includes('next') ? await install(nextVersion) : undefined;

let testing;
try {
  // The shared testing lib's build (CommonJS; its named exports are read from the default export).
  testing = (await import('@mcp-platform/shared-testing')).default;
} catch (error) {
  fail(`cannot load @mcp-platform/shared-testing (run \`npm run build\` first): ${error.message}`);
}
const { ProcessTracker, bootDistributed, findClusterModule, getFreePort, importClusterModule, obtainToken, startRoundRobinProxy, waitForHttpOk } = testing;

const tracker = new ProcessTracker();
const cleanups = [];
let stopping = false;

async function stopEverything() {
  if (stopping) return;
  stopping = true;
  for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => console.error(`conformance: cleanup failed: ${error.message}`));
  await tracker.stopAll();
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    console.error(`conformance: ${signal}, stopping`);
    void stopEverything().finally(() => process.exit(130));
  });
}

/**
 * The current suite (the active suite with the baseline, then the pending json-schema-2020-12 and, strictly,
 * server-sse-polling scenarios) and the newest suite at both wires, strictly, with its baseline. Each run
 * is one entry of the result: its title and exit code (0 ok).
 */
async function runSuites(mode, url, wireBaseline = nextBaseline) {
  const runs = [];
  const report = (title, result) => {
    for (const line of result.lines) console.log(line);
    console.log(`conformance: ${result.passed} passed, ${result.failed} failed${result.ok ? '' : ' — FAILED'}`);
    runs.push({ title, code: result.ok ? 0 : 1 });
  };
  const leg = async (title, name, args, options = {}) => {
    console.log(`\n=== ${mode}: ${url} — ${title} ===`);
    report(title, await runLeg(suite, { url, args, resultsDir: join(resultsRoot, `${mode}-${name}`), ...options }));
  };
  if (suite) {
    await leg('active suite (with baseline)', 'active', ['--suite', 'active', '--expected-failures', baseline], { timeoutMs: 300_000 });
    await leg('json-schema-2020-12', 'json-schema-2020-12', ['--scenario', 'json-schema-2020-12'], { timeoutMs: 120_000 });
    await leg('server-sse-polling (strict)', 'server-sse-polling', ['--scenario', 'server-sse-polling'], { strict: true, timeoutMs: 120_000 });
  }
  if (next) {
    const title = `${next.version}, both wires (strict, with baseline)`;
    console.log(`\n=== ${mode}: ${url} — ${title}, baseline ${relative(root, wireBaseline)} ===`);
    const expected = parseWireBaseline(readFileSync(wireBaseline, 'utf8'));
    report(title, await runBothWires(next, { url, resultsDir: join(resultsRoot, `${mode}-next`), baseline: expected }));
  }
  return { mode, runs };
}

/** Starts one embedded platform on a free port, in memory; resolves with its base URL once it is ready. */
async function startStandalone(name, env = {}) {
  const port = await getFreePort();
  const base = `http://127.0.0.1:${port}`;
  const app = tracker.start(name, process.execPath, [standaloneMain], {
    cwd: root,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: 'memory://', LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', ...env },
  });
  cleanups.push(() => tracker.stop(app));
  try {
    await waitForHttpOk(`${base}/health/ready`, { timeoutMs: 60_000, description: `the embedded platform (${name})` });
  } catch (error) {
    console.error(app.output());
    throw error;
  }
  return { base, stop: () => tracker.stop(app) };
}

async function embedded() {
  const platform = await startStandalone('standalone');
  try {
    return await runSuites('embedded', `${platform.base}${virtualServerPath}`);
  } finally {
    await platform.stop();
  }
}

const FEDERATION_TENANT = 'federation';
const FEDERATION_ADMIN = { username: 'conformance-admin', password: 'conformance-admin-password' };

/**
 * The suites through federation: a gateway platform whose virtual server `federation/everything` serves
 * nothing of its own but every tool, prompt, resource and template of one upstream source without a
 * prefix, and that upstream is another platform process's conformance server (the suites' fixtures), so
 * every scenario crosses the gateway's upstream bridging (a modern upstream, found by `server/discover`).
 * The gateway is set up the way a tenant admin would: through the admin API, with a token from its own
 * authorization server.
 */
async function federated() {
  const upstream = await startStandalone('upstream');
  const gateway = await startStandalone('gateway', {
    ADMIN_USERNAME: FEDERATION_ADMIN.username,
    ADMIN_PASSWORD: FEDERATION_ADMIN.password,
    UPSTREAM_ALLOWED_HOSTS: '127.0.0.1',
  });
  try {
    await federate(gateway.base, `${upstream.base}${virtualServerPath}`);
    return await runSuites('federated', `${gateway.base}/${FEDERATION_TENANT}/everything/mcp`, federatedBaseline);
  } finally {
    await gateway.stop();
    await upstream.stop();
  }
}

/** Creates the federation tenant on `gateway`: the upstream source (every item approved) and the public virtual server exposing it. */
async function federate(gateway, upstreamUrl) {
  const adminUrl = `${gateway}/admin/v1`;
  const token = await obtainToken({ issuer: `${gateway}/oauth`, resource: adminUrl, scope: 'admin', user: FEDERATION_ADMIN });
  const admin = async (method, path, body, expected) => {
    const response = await fetch(`${adminUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    if (response.status !== expected) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    return response.json();
  };
  await admin('POST', '/tenants', { slug: FEDERATION_TENANT, name: 'Conformance through federation' }, 201);
  await admin('PUT', `/tenants/${FEDERATION_TENANT}/virtual-servers/everything`, { title: 'everything (federated)', public: true, tools: [] }, 200);
  const connection = { transport: 'streamable-http', url: upstreamUrl };
  await admin('PUT', `/tenants/${FEDERATION_TENANT}/upstreams/everything`, { connection, prefix: null, policy: 'approve-all' }, 201);
  await admin(
    'PUT',
    `/tenants/${FEDERATION_TENANT}/virtual-servers/everything`,
    { title: 'everything (federated)', public: true, sources: [{ source: 'everything' }] },
    200,
  );
  console.log(`conformance: ${gateway}/${FEDERATION_TENANT}/everything/mcp federates ${upstreamUrl}`);
}

/** Two broker replicas behind a round-robin proxy: the suites' sessions, streams and retries cross replicas. */
async function distributed() {
  const startCluster = await importClusterModule(findClusterModule(root));
  const proxyPort = await getFreePort();
  const publicUrl = `http://127.0.0.1:${proxyPort}`;
  const platform = await bootDistributed(startCluster, { brokerReplicas: 2, env: { PUBLIC_URL: publicUrl, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' } });
  cleanups.push(() => platform.stop());
  const proxy = await startRoundRobinProxy(platform.brokerUrls, { port: proxyPort });
  cleanups.push(() => proxy.close());
  try {
    const outcome = await runSuites('distributed', `${publicUrl}${virtualServerPath}`);
    console.log(`conformance: the proxy sent ${proxy.counts.join(' and ')} requests to the two broker replicas`);
    return outcome;
  } finally {
    await proxy.close();
    await platform.stop();
  }
}

const results = [];
try {
  for (const mode of modes) {
    if (mode === 'embedded') results.push(await embedded());
    else if (mode === 'distributed') results.push(await distributed());
    else if (mode === 'federated') results.push(await federated());
    else fail(`unknown mode "${mode}" in CONFORMANCE_MODES (embedded, distributed, federated)`);
  }
} catch (error) {
  console.error(`conformance: could not run: ${error.stack ?? error}`);
  await stopEverything();
  process.exit(2);
}
await stopEverything();

console.log('\n=== conformance summary ===');
const verdict = (code) => (code === 0 ? 'ok' : 'FAILED');
for (const { mode, runs } of results) console.log(`${mode.padEnd(12)} ${runs.map((run) => `${run.title}: ${verdict(run.code)}`).join('; ')}`);
// One closing line for the whole tier: each suite run in each mode counts once; the per-scenario lines
// above include the baselines' expected failures.
const runs = results.flatMap((result) => result.runs);
const failed = runs.filter((run) => run.code !== 0).length;
console.log(`conformance runs: ${runs.length - failed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
