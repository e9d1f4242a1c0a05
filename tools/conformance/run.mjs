#!/usr/bin/env node
// `npm run test:conformance`: the official MCP conformance suite against the platform, in both modes.
// Installs the suite on first use (suite.mjs: @modelcontextprotocol/conformance with the TypeScript SDK
// client it drives, and Node 22 when this Node is older, from the npm registry into a cache), starts the
// embedded platform (`node apps/standalone/dist/main.js` on a free port, in memory), then the distributed
// platform (five processes over the real NATS and PostgreSQL, a throwaway database), and runs against
// `<base>/conformance/everything/mcp` in each: the active suite with the baseline in
// expected-failures.yml, then the pending `json-schema-2020-12` scenario, then the pending
// `server-sse-polling` scenario (SSE resumability: priming event, `retry`, Last-Event-ID) strictly, so a
// WARNING (or a pass on a missing fixture) fails it too.
// Environment: CONFORMANCE_MODES (default `embedded,distributed`), CONFORMANCE_CACHE (default
// node_modules/.cache/mcp-conformance; point it at a filled cache to run offline), CONFORMANCE_VERSION
// and CONFORMANCE_SDK_VERSION (the suite and SDK versions; defaults in suite.mjs).
// Builds nothing (run `npm run build` first; `npm test` does). Exits 1 on any unexpected failure or
// stale baseline entry, 2 when it cannot run; stops every process it started, by pid.
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SDK_VERSION, DEFAULT_SUITE_VERSION, defaultCacheDir, installSuite, runLeg } from './suite.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const baseline = join(root, 'tools', 'conformance', 'expected-failures.yml');
const standaloneMain = join(root, 'apps', 'standalone', 'dist', 'main.js');
const virtualServerPath = '/conformance/everything/mcp';
const modes = (process.env.CONFORMANCE_MODES ?? 'embedded,distributed').split(',').map((mode) => mode.trim());
const cacheDir = resolve(process.env.CONFORMANCE_CACHE || defaultCacheDir(root));
const version = process.env.CONFORMANCE_VERSION || DEFAULT_SUITE_VERSION;
const sdkVersion = process.env.CONFORMANCE_SDK_VERSION || DEFAULT_SDK_VERSION;
const resultsRoot = join(root, 'tmp', 'conformance', new Date().toISOString().replace(/[:.]/g, '-'));

function fail(message) {
  console.error(`conformance: ${message}`);
  process.exit(2);
}

if (!existsSync(standaloneMain)) fail(`${relative(root, standaloneMain)} is missing: run \`npm run build\` first`);

let suite;
try {
  suite = await installSuite({ cacheDir, version, sdkVersion, log: (line) => console.log(`conformance: ${line}`) });
} catch (error) {
  fail(`cannot install the conformance suite ${version} (set CONFORMANCE_CACHE to a filled cache to run offline): ${error.message}`);
}
console.log(`conformance: @modelcontextprotocol/conformance@${suite.version} with @modelcontextprotocol/sdk@${suite.sdkVersion ?? 'the suite\'s range'}, run by ${suite.node === process.execPath ? `this node (${process.version})` : suite.node}`);

let testing;
try {
  // The shared testing lib's build (CommonJS; its named exports are read from the default export).
  testing = (await import('@mcp-platform/shared-testing')).default;
} catch (error) {
  fail(`cannot load @mcp-platform/shared-testing (run \`npm run build\` first): ${error.message}`);
}
const { ProcessTracker, bootDistributed, findClusterModule, getFreePort, importClusterModule, waitForHttpOk } = testing;

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

/** The active suite with the baseline, then the pending json-schema-2020-12 and (strict) server-sse-polling scenarios. */
async function runSuites(mode, url) {
  const leg = async (title, name, args, options = {}) => {
    console.log(`\n=== ${mode}: ${url} — ${title} ===`);
    const result = await runLeg(suite, { url, args, resultsDir: join(resultsRoot, `${mode}-${name}`), ...options });
    for (const line of result.lines) console.log(line);
    console.log(`conformance: ${result.passed} passed, ${result.failed} failed${result.ok ? '' : ' — FAILED'}`);
    return result.ok ? 0 : 1;
  };
  const active = await leg(`active suite, baseline ${relative(root, baseline)}`, 'active', ['--suite', 'active', '--expected-failures', baseline], { timeoutMs: 300_000 });
  const pending = await leg('pending scenario json-schema-2020-12', 'json-schema-2020-12', ['--scenario', 'json-schema-2020-12'], { timeoutMs: 120_000 });
  const polling = await leg('pending scenario server-sse-polling, strict', 'server-sse-polling', ['--scenario', 'server-sse-polling'], { strict: true, timeoutMs: 120_000 });
  return { mode, active, pending, polling };
}

async function embedded() {
  const port = await getFreePort();
  const base = `http://127.0.0.1:${port}`;
  const app = tracker.start('standalone', process.execPath, [standaloneMain], {
    cwd: root,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: 'memory://', LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
  });
  cleanups.push(() => tracker.stop(app));
  try {
    await waitForHttpOk(`${base}/health/ready`, { timeoutMs: 60_000, description: 'the embedded platform' });
  } catch (error) {
    console.error(app.output());
    throw error;
  }
  try {
    return await runSuites('embedded', `${base}${virtualServerPath}`);
  } finally {
    await tracker.stop(app);
  }
}

async function distributed() {
  const startCluster = await importClusterModule(findClusterModule(root));
  const platform = await bootDistributed(startCluster, { brokerReplicas: 1, env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' } });
  cleanups.push(() => platform.stop());
  try {
    return await runSuites('distributed', `${platform.baseUrl}${virtualServerPath}`);
  } finally {
    await platform.stop();
  }
}

const results = [];
try {
  for (const mode of modes) {
    if (mode === 'embedded') results.push(await embedded());
    else if (mode === 'distributed') results.push(await distributed());
    else fail(`unknown mode "${mode}" in CONFORMANCE_MODES (embedded, distributed)`);
  }
} catch (error) {
  console.error(`conformance: could not run: ${error.stack ?? error}`);
  await stopEverything();
  process.exit(2);
}
await stopEverything();

console.log('\n=== conformance summary ===');
let failed = false;
const verdict = (code) => (code === 0 ? 'ok' : `FAILED (exit ${code})`);
for (const { mode, active, pending, polling } of results) {
  console.log(`${mode.padEnd(12)} active suite (with baseline): ${verdict(active)}; json-schema-2020-12: ${verdict(pending)}; server-sse-polling (strict): ${verdict(polling)}`);
  if (active !== 0 || pending !== 0 || polling !== 0) failed = true;
}
// One closing line for the whole tier: each suite run (active against its baseline, and each pending
// scenario) in each mode counts once; the per-scenario lines above include the baseline's expected failures.
const runs = results.flatMap(({ active, pending, polling }) => [active, pending, polling]);
console.log(`conformance runs: ${runs.filter((code) => code === 0).length} passed, ${runs.filter((code) => code !== 0).length} failed`);
process.exit(failed ? 1 : 0);
