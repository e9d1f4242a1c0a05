// Shared by the load benches (mcp-requests.bench.mjs, federation.bench.mjs): the built testing lib, the
// request bodies and success check of one MCP method, the three ways a target is called (legacy
// session, modern stateless, plain stateless POST), the autocannon run of one point and its table,
// the admin API, the SDK server process and the run's teardown. One copy, so every bench measures the
// same way.
import { once } from 'node:events';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

/** The workspace root (this file is bench/mcp-load.mjs). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The legacy revision every legacy target negotiates. */
export const LEGACY_VERSION = '2025-11-25';

/** `@mcp-platform/shared-testing` as built in dist/: a bench cannot run without it, so it says how to get it. */
export const testing = await (async () => {
  try {
    return (await import('@mcp-platform/shared-testing')).default;
  } catch (error) {
    console.error(`bench: cannot load @mcp-platform/shared-testing (run \`npm run build\` first): ${error.message}`);
    process.exit(2);
  }
})();
const { modernHeaders, modernMeta, obtainToken, openLegacySession, waitUntil } = testing;

/**
 * One MCP request a bench sends again and again: `method`, its `params`, the `Mcp-Name` of the modern
 * era (`name`) and the field its success result holds (`resultField`, quoted as in the JSON).
 * @typedef {{ method: string, name: string, params: Record<string, unknown>, resultField: string }} McpRequest
 */

/** `tools/call` of `tool` without arguments. @param {string} tool @returns {McpRequest} */
export function toolCall(tool) {
  return { method: 'tools/call', name: tool, params: { name: tool, arguments: {} }, resultField: '"content"' };
}

/** The JSON-RPC body of `request`; `0` is replaced by a fresh id per request (see `load`). */
export function requestBody(request, meta) {
  const params = meta ? { ...request.params, _meta: meta } : request.params;
  return JSON.stringify({ jsonrpc: '2.0', id: 0, method: request.method, params });
}

/**
 * A real success: a JSON-RPC result with the request's field (`content`, `contents`) that is not a
 * tool error (JSON or SSE body).
 */
export function isSuccess(request, body) {
  return body.includes('"result"') && body.includes(request.resultField) && !body.includes('"isError":true') && !/"error"\s*:\s*\{/.test(body);
}

/**
 * A target called through legacy sessions, one per connection (so each connection behaves like its
 * own client): `initialize` + `notifications/initialized` first, `Mcp-Session-Id` on every POST.
 */
export async function legacyTarget(name, url, request, count, extraHeaders = {}) {
  const sessions = [];
  for (let index = 0; index < count; index += 1) sessions.push(await openLegacySession(url, undefined, LEGACY_VERSION, extraHeaders));
  return { name, url, request, body: requestBody(request), sessions, headersFor: (index) => sessions[index].headers };
}

/** A target called on the modern stateless path: `_meta` version and capabilities, `Mcp-Method`/`Mcp-Name`, no session. */
export function modernTarget(name, url, request, extraHeaders = {}) {
  const headers = { ...modernHeaders(request.method, request.name), ...extraHeaders };
  return { name, url, request, body: requestBody(request, modernMeta()), headersFor: () => headers };
}

/** A target called by plain POSTs without a session (a stateless SDK server). */
export function statelessTarget(name, url, request, extraHeaders = {}) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': LEGACY_VERSION,
    ...extraHeaders,
  };
  return { name, url, request, body: requestBody(request), headersFor: () => headers };
}

/** The `q` quantile (0..1) of sorted `values`, nearest rank; 0 for none. */
function quantile(sorted, q) {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/**
 * One point: `connections` connections on `target` for `durationS` seconds. autocannon's own
 * percentiles are whole milliseconds; `p50Exact`/`p99Exact` come from every 2xx answer's time as
 * autocannon measured it (sub-millisecond), for figures where a millisecond matters.
 */
export async function load(target, connections, durationS) {
  let nextClient = 0;
  let nextId = 0;
  /** The first answer that was not a success, to say on the console what went wrong. */
  let firstFailure;
  const latencies = [];
  const [before, after] = target.body.split('"id":0');
  const instance = autocannon({
    url: target.url,
    connections,
    duration: durationS,
    verifyBody: (body) => {
      const success = isSuccess(target.request, body);
      if (!success) firstFailure ??= body.slice(0, 300);
      return success;
    },
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
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  });
  const [result] = await once(instance, 'done');
  latencies.sort((a, b) => a - b);
  return {
    target: target.name,
    connections,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    p50Exact: quantile(latencies, 0.5),
    p99Exact: quantile(latencies, 0.99),
    total: result.requests.total,
    non2xx: result.non2xx,
    rpcErrors: result.mismatches,
    errors: result.errors + result.timeouts,
    firstFailure,
  };
}

/**
 * The warm-up's connection count: 16, or fewer when the run's points stop below it (a legacy target
 * holds only as many sessions as its largest point).
 */
export function warmupConnections(concurrency) {
  return Math.min(16, Math.max(...concurrency));
}

/** Whether a point answered only real successes (and answered at all). */
export function isClean(row) {
  return row.total > 0 && row.non2xx === 0 && row.rpcErrors === 0 && row.errors === 0;
}

/** The console line of one point, and its first failed answer if it had one. */
export function logPoint(row) {
  console.log(
    `  ${row.target.padEnd(23)} c=${String(row.connections).padStart(2)}  ${row.rps.toFixed(0).padStart(6)} req/s  p50 ${row.p50Exact.toFixed(2)} ms  p99 ${row.p99Exact.toFixed(2)} ms${isClean(row) ? '' : '  (errors!)'}`,
  );
  if (row.firstFailure !== undefined) console.log(`    first failed answer: ${row.firstFailure.replace(/\s+/g, ' ')}`);
}

/**
 * The report's table of points. `exact` shows the sub-millisecond percentiles instead of autocannon's
 * whole milliseconds; `failures` names the column of answers that were not a success.
 */
export function resultsTable(rows, { failures, exact = false }) {
  const lines = [
    `| target | c | req/s | p50 ms | p99 ms | requests | non-2xx | ${failures} | socket errors | verdict |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const row of rows) {
    const [p50, p99] = exact ? [row.p50Exact.toFixed(2), row.p99Exact.toFixed(2)] : [row.p50, row.p99];
    lines.push(
      `| ${row.target} | ${row.connections} | ${row.rps.toFixed(0)} | ${p50} | ${p99} | ${row.total} | ${row.non2xx} | ${row.rpcErrors} | ${row.errors} | ${isClean(row) ? 'ok' : 'HAS ERRORS'} |`,
    );
  }
  return lines.join('\n');
}

/** The point of `name` at `c` connections, if it ran. */
export function findPoint(rows, name, c) {
  return rows.find((row) => row.target === name && row.connections === c);
}

/** The date and machine lines every report starts with, so numbers are read with what produced them. */
export function machineLines() {
  const cpus = os.cpus();
  return [
    `Date: ${new Date().toISOString()}`,
    `Machine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`,
  ];
}

/** Calls the admin REST API (`${authUrl}/admin/v1`) and throws unless the status is expected. */
export async function adminCall(platform, adminToken, method, path, body, expected) {
  const response = await fetch(`${platform.authUrl}/admin/v1${path}`, {
    method,
    headers: { accept: 'application/json', authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  if (!expected.includes(response.status)) throw new Error(`admin API ${method} ${path} answered ${response.status}: ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

/** An admin-API token (scope `admin`) of the run's platform admin, through the browser flow. */
export async function adminToken(platform) {
  if (platform.adminUser === undefined) throw new Error('the cluster was booted without a platform admin');
  const admin = await obtainToken({ issuer: platform.issuer, resource: `${platform.authUrl}/admin/v1`, scope: 'admin', user: platform.adminUser });
  return admin.access_token;
}

/**
 * Waits until one modern `request` succeeds at `url` (a new virtual server, resource or upstream tool
 * reaches the broker and the store by events and writes, not at once).
 */
export async function waitUntilServed(url, request, extraHeaders = {}, description = '') {
  const headers = { ...modernHeaders(request.method, request.name), ...extraHeaders };
  await waitUntil(
    async () => {
      const response = await fetch(url, { method: 'POST', headers, body: requestBody(request, modernMeta()), signal: AbortSignal.timeout(5_000) });
      const body = await response.text();
      if (response.status !== 200 || !isSuccess(request, body)) throw new Error(`HTTP ${response.status}: ${body.slice(0, 200)}`);
      return true;
    },
    { timeoutMs: 20_000, intervalMs: 250, description: `a ${request.method} on ${url}${description}` },
  );
}

/**
 * Starts `bench/sdk-server.mjs <mode>` in its own process on a free loopback port, stopped by the
 * run's teardown; resolves with its MCP URL, port and pid once it listens.
 */
export async function startSdkServer(run, mode, env = {}) {
  const server = run.tracker.start(`sdk-${mode}`, process.execPath, [join(ROOT, 'bench', 'sdk-server.mjs'), mode, '0'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  run.cleanups.push(() => run.tracker.stop(server));
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
  return { url: `http://127.0.0.1:${port}/mcp`, port, pid: server.pid };
}

/**
 * What a run started and must undo: `cleanups` run last-in first-out, then every tracked process is
 * stopped; Ctrl+C and SIGTERM undo it too.
 */
export function benchRun() {
  const run = {
    tracker: new testing.ProcessTracker(),
    cleanups: [],
    async stopEverything() {
      for (const cleanup of run.cleanups.reverse()) await cleanup().catch((error) => console.error(`bench: cleanup failed: ${error.message}`));
      run.cleanups.length = 0;
      await run.tracker.stopAll();
    },
  };
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => void run.stopEverything().finally(() => process.exit(130)));
  }
  return run;
}
