#!/usr/bin/env node
// `npm run bench`: tools/call throughput and latency of the platform's distributed path next to the
// official SDK's single-process server, in one run, on this machine. A benchmark, not a test: it
// prints a table and the ratios, and exits non-zero only when it could not run. See bench/README.md.
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const config = {
  durationS: Number(process.env.BENCH_DURATION_S ?? 10),
  warmupS: Number(process.env.BENCH_WARMUP_S ?? 2),
  concurrency: (process.env.BENCH_CONCURRENCY ?? '1,16,64').split(',').map(Number),
  targets: (process.env.BENCH_TARGETS ?? 'distributed-legacy,distributed-modern,sdk-stateless,sdk-stateful').split(','),
  resultsFile: process.env.BENCH_RESULTS_FILE,
};

let testing;
try {
  testing = (await import('@mcp-platform/shared-testing')).default;
} catch (error) {
  console.error(`bench: cannot load @mcp-platform/shared-testing (run \`npm run build\` first): ${error.message}`);
  process.exit(2);
}
const { MODERN_PROTOCOL_VERSION, ProcessTracker, bootDistributed, findClusterModule, importClusterModule, modernHeaders, modernMeta, openLegacySession } =
  testing;

const TOOL = 'test_simple_text';
const LEGACY_VERSION = '2025-11-25';
const tracker = new ProcessTracker();
const cleanups = [];

async function stopEverything() {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => console.error(`bench: cleanup failed: ${error.message}`));
  cleanups.length = 0;
  await tracker.stopAll();
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => void stopEverything().finally(() => process.exit(130)));
}

/** A tools/call body template; `0` is replaced by a fresh id per request (see `load`). */
function callBody(meta) {
  const params = meta ? { name: TOOL, arguments: {}, _meta: meta } : { name: TOOL, arguments: {} };
  return JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'tools/call', params });
}

/** A real success: a JSON-RPC result that is not a tool error (JSON or SSE body). */
function isSuccess(body) {
  return body.includes('"result"') && !body.includes('"isError":true') && !/"error"\s*:\s*\{/.test(body);
}

/** Opens one legacy session per connection, so each connection behaves like its own client. */
async function legacySessions(url, count) {
  const sessions = [];
  for (let index = 0; index < count; index += 1) sessions.push(await openLegacySession(url, undefined, LEGACY_VERSION));
  return sessions;
}

async function startSdkServer(mode) {
  const server = tracker.start(`sdk-${mode}`, process.execPath, [join(root, 'bench', 'sdk-server.mjs'), mode, '0'], { cwd: root });
  cleanups.push(() => tracker.stop(server));
  const port = await new Promise((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`sdk-${mode} did not start: ${server.output()}`)), 20_000);
    server.child.stdout.on('data', () => {
      const match = /listening (\d+)/.exec(server.output());
      if (match) {
        clearTimeout(timer);
        resolvePort(Number(match[1]));
      }
    });
  });
  return `http://127.0.0.1:${port}/mcp`;
}

/** Each target: a URL and, per connection count, the headers each connection sends. */
async function prepareTargets(distributedUrl, sdkUrls) {
  const targets = [];
  const maxConnections = Math.max(...config.concurrency);
  if (config.targets.includes('distributed-legacy')) {
    const sessions = await legacySessions(distributedUrl, maxConnections);
    targets.push({ name: 'distributed-legacy', url: distributedUrl, body: callBody(), headersFor: (index) => sessions[index].headers });
  }
  if (config.targets.includes('distributed-modern')) {
    const headers = modernHeaders('tools/call', TOOL);
    targets.push({ name: 'distributed-modern', url: distributedUrl, body: callBody(modernMeta()), headersFor: () => headers });
  }
  if (sdkUrls.stateless) {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LEGACY_VERSION };
    targets.push({ name: 'sdk-stateless', url: sdkUrls.stateless, body: callBody(), headersFor: () => headers });
  }
  if (sdkUrls.stateful) {
    const sessions = await legacySessions(sdkUrls.stateful, maxConnections);
    targets.push({ name: 'sdk-stateful', url: sdkUrls.stateful, body: callBody(), headersFor: (index) => sessions[index].headers });
  }
  return targets;
}

async function load(target, connections, durationS) {
  let nextClient = 0;
  let nextId = 0;
  const [before, after] = target.body.split('"id":0');
  const instance = autocannon({
    url: target.url,
    connections,
    duration: durationS,
    verifyBody: isSuccess,
    requests: [
      {
        method: 'POST',
        // A fresh JSON-RPC id per request (in-flight ids must be unique within a session), and one
        // set of headers (one session) per connection, kept in the connection's context.
        setupRequest: (request, context) => {
          context.headers ??= target.headersFor(nextClient++ % connections);
          return { ...request, headers: context.headers, body: `${before}"id":${(nextId += 1)}${after}` };
        },
      },
    ],
  });
  const [result] = await once(instance, 'done');
  return {
    target: target.name,
    connections,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    rpcErrors: result.mismatches,
    errors: result.errors + result.timeouts,
  };
}

function table(rows) {
  const lines = [
    '| target | c | req/s | p50 ms | p99 ms | requests | non-2xx | JSON-RPC/tool errors | socket errors | verdict |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const row of rows) {
    const clean = row.total > 0 && row.non2xx === 0 && row.rpcErrors === 0 && row.errors === 0;
    lines.push(
      `| ${row.target} | ${row.connections} | ${row.rps.toFixed(0)} | ${row.p50} | ${row.p99} | ${row.total} | ${row.non2xx} | ${row.rpcErrors} | ${row.errors} | ${clean ? 'ok' : 'HAS ERRORS'} |`,
    );
  }
  return lines.join('\n');
}

function ratios(rows) {
  const lines = ['| ours | SDK | c | ratio | target | met |', '| --- | --- | ---: | ---: | ---: | --- |'];
  const find = (name, c) => rows.find((row) => row.target === name && row.connections === c);
  for (const c of config.concurrency) {
    for (const ours of ['distributed-legacy', 'distributed-modern']) {
      for (const [sdk, goal] of [
        ['sdk-stateless', 2],
        ['sdk-stateful', 1],
      ]) {
        const a = find(ours, c);
        const b = find(sdk, c);
        if (!a || !b || b.rps === 0) continue;
        const ratio = a.rps / b.rps;
        const judged = c >= 16;
        lines.push(`| ${ours} | ${sdk} | ${c} | ${ratio.toFixed(2)}× | ${judged ? `≥ ${goal}×` : '—'} | ${judged ? (ratio >= goal ? 'yes' : 'NO') : '—'} |`);
      }
    }
  }
  return lines.join('\n');
}

const rows = [];
let exitCode = 0;
try {
  const needsCluster = config.targets.some((name) => name.startsWith('distributed-'));
  let distributedUrl;
  if (needsCluster) {
    const startCluster = await importClusterModule(findClusterModule(root));
    const platform = await bootDistributed(startCluster, { brokerReplicas: 1, env: { LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn' } });
    cleanups.push(() => platform.stop());
    distributedUrl = `${platform.baseUrl}/conformance/everything/mcp`;
  }
  const sdkUrls = {
    stateless: config.targets.includes('sdk-stateless') ? await startSdkServer('stateless') : undefined,
    stateful: config.targets.includes('sdk-stateful') ? await startSdkServer('stateful') : undefined,
  };
  const targets = await prepareTargets(distributedUrl, sdkUrls);
  console.log(`bench: ${targets.map((t) => t.name).join(', ')} × c=${config.concurrency.join('/')} × ${config.durationS} s (warm-up ${config.warmupS} s)`);
  for (const target of targets) {
    if (config.warmupS > 0) await load(target, 16, config.warmupS);
    for (const connections of config.concurrency) {
      const row = await load(target, connections, config.durationS);
      rows.push(row);
      console.log(`  ${row.target.padEnd(20)} c=${String(connections).padStart(2)}  ${row.rps.toFixed(0).padStart(6)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms${row.non2xx + row.rpcErrors + row.errors || row.total === 0 ? '  (errors!)' : ''}`);
    }
  }
} catch (error) {
  console.error(`bench: could not run: ${error.stack ?? error}`);
  exitCode = 2;
} finally {
  await stopEverything();
}

if (rows.length > 0) {
  const cpus = os.cpus();
  const header = [
    `Date: ${new Date().toISOString()}`,
    `Machine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`,
    `Tool: \`${TOOL}\` via tools/call; ${config.durationS} s per point after a ${config.warmupS} s warm-up; autocannon in the orchestrating process (separate from every server).`,
    `Modern protocol: ${MODERN_PROTOCOL_VERSION}; legacy: ${LEGACY_VERSION} (one session per connection).`,
  ].join('\n');
  const report = `${header}\n\n${table(rows)}\n\nRatios (distributed path ÷ SDK server):\n\n${ratios(rows)}\n`;
  console.log(`\n${report}`);
  if (config.resultsFile) writeFileSync(config.resultsFile, report);
}
process.exit(exitCode);
