#!/usr/bin/env node
// `npm run test:conformance`: the official MCP conformance suite against the platform, in both modes.
// Starts the embedded platform (`node apps/standalone/dist/main.js` on a free port), then the distributed
// platform (five processes over the real NATS and PostgreSQL, a throwaway database), and runs
// ../shared/tools/conformance.sh against `<base>/conformance/everything/mcp` in each: the active suite
// with the baseline in expected-failures.yml, then the pending `json-schema-2020-12` scenario, then the
// pending `server-sse-polling` scenario (SSE resumability: priming event, `retry`, Last-Event-ID) with
// `--strict`, so a WARNING fails it too.
// Builds nothing (run `npm run build` first; `npm test` does). Exits 1 on any unexpected failure or
// stale baseline entry, 2 when it cannot run; stops every process it started, by pid.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const conformanceScript = resolve(root, '..', 'shared', 'tools', 'conformance.sh');
const baseline = join('tools', 'conformance', 'expected-failures.yml');
const standaloneMain = join(root, 'apps', 'standalone', 'dist', 'main.js');
const virtualServerPath = '/conformance/everything/mcp';
const modes = (process.env.CONFORMANCE_MODES ?? 'embedded,distributed').split(',').map((mode) => mode.trim());

function fail(message) {
  console.error(`conformance: ${message}`);
  process.exit(2);
}

if (!existsSync(conformanceScript)) {
  fail(`the conformance script is missing: expected ${relative(root, conformanceScript)} (the shared/ folder beside the repository)`);
}
if (!existsSync(standaloneMain)) fail(`${relative(root, standaloneMain)} is missing: run \`npm run build\` first`);

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

/** Runs conformance.sh with `args`, its output passed through; resolves with its exit code. */
function runConformance(args) {
  return new Promise((resolvePromise) => {
    const child = spawn('bash', [conformanceScript, ...args], { cwd: root, stdio: 'inherit' });
    child.once('exit', (code, signal) => resolvePromise(code ?? (signal ? 1 : 0)));
  });
}

/** The active suite with the baseline, then the pending json-schema-2020-12 and (strict) server-sse-polling scenarios. */
async function runSuites(mode, url) {
  console.log(`\n=== ${mode}: ${url} — active suite, baseline ${baseline} ===`);
  const active = await runConformance(['--expected-failures', baseline, '--timeout', '300', url]);
  console.log(`\n=== ${mode}: ${url} — pending scenario json-schema-2020-12 ===`);
  const pending = await runConformance(['--scenario', 'json-schema-2020-12', '--timeout', '120', url]);
  console.log(`\n=== ${mode}: ${url} — pending scenario server-sse-polling, strict ===`);
  const polling = await runConformance(['--scenario', 'server-sse-polling', '--strict', '--timeout', '120', url]);
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
