#!/usr/bin/env node
// `npm run bench:federation`: what federating an upstream MCP server costs. In one run, on this machine:
// (1) tools/call throughput and latency of one upstream tool called straight on the upstream (the
// official SDK 1.x stateless server in its own process) and through the platform on both protocol
// paths, with the platform's own built-in tool beside them; (2) the memory of 1,000 idle legacy
// sessions on the federated virtual server and the upstream connections the executor holds; (3) how
// long an upstream's `notifications/tools/list_changed` takes to reach a legacy client of the platform.
// A benchmark, not a test: it prints the figures and the targets beside them, and exits
// non-zero only when it could not run. See bench/README.md.
import { readdir, readFile, readlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { appendResults } from './bench-results.mjs';
import {
  adminCall,
  adminToken,
  benchRun,
  findPoint,
  isClean,
  LEGACY_VERSION,
  legacyTarget,
  load,
  logPoint,
  machineLines,
  modernTarget,
  resultsTable,
  ROOT,
  startSdkServer,
  statelessTarget,
  testing,
  toolCall,
  waitUntilServed,
  warmupConnections,
} from './mcp-load.mjs';

const {
  MODERN_PROTOCOL_VERSION,
  bootDistributed,
  deleteLegacySession,
  findClusterModule,
  importClusterModule,
  keepAliveAgent,
  mcpUrl,
  openLegacySession,
  processRssBytes,
  sendRaw,
  startLegacyUpstream,
  waitUntil,
} = testing;

const config = {
  durationS: Number(process.env.BENCH_DURATION_S ?? 10),
  warmupS: Number(process.env.BENCH_WARMUP_S ?? 2),
  concurrency: (process.env.BENCH_CONCURRENCY ?? '1,16,64').split(',').map(Number),
  idleSessions: Number(process.env.BENCH_IDLE_SESSIONS ?? 1000),
  listChangedRepeats: Number(process.env.BENCH_LIST_CHANGED_REPEATS ?? 20),
  resultsFile: process.env.BENCH_RESULTS_FILE,
};

/** The upstream tool of the load phase: the conformance fixture `bench/sdk-server.mjs` serves. */
const TOOL = 'test_simple_text';
/** The tenant, source and public virtual server the load and memory phases federate the SDK server into. */
const FEDERATED = { tenant: 'bench-federation', source: 'bench', server: 'main' };
const FEDERATED_TOOL = `${FEDERATED.source}__${TOOL}`;
/** The platform's own path for comparison: the built-in `test_simple_text` of the seeded conformance tenant. */
const BUILTIN = { tenant: 'conformance', server: 'everything' };
/** The tenant and source of the list_changed phase: the legacy upstream fixture, in this process. */
const LIVE = { tenant: 'bench-live', source: 'live', server: 'main', tool: 'live__echo' };
/** The targets: federated ≥ 0.7× the direct throughput at c=16 and c=64, ≤ 1 ms added p50 at c=1. */
const GOAL = { minRatio: 0.7, ratioAt: [16, 64], maxAddedP50Ms: 1, latencyAt: 1 };
/** How long the idle sessions are left alone before their memory is read. */
const IDLE_SETTLE_MS = 3_000;
/** Requests in flight while the idle sessions are opened and closed. */
const OPEN_PARALLELISM = 16;
/** Pause between two list_changed repeats, so a late notification of one is never taken for the next. */
const LIST_CHANGED_GAP_MS = 500;

const run = benchRun();

/**
 * The cluster (one broker), allowed to reach upstreams on loopback, with room for every legacy
 * session of the run from this one caller (the default cap of 100 would end the oldest).
 */
async function bootPlatform() {
  const clusterModule = findClusterModule(ROOT);
  const startCluster = await importClusterModule(clusterModule);
  const { APP_PORTS } = await import(clusterModule);
  const maxConnections = Math.max(...config.concurrency);
  const env = {
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    UPSTREAM_ALLOWED_HOSTS: '127.0.0.1',
    LEGACY_SESSIONS_PER_CALLER: String(Math.max(100, config.idleSessions + 4 * maxConnections + 10)),
  };
  const platform = await bootDistributed(startCluster, { brokerReplicas: 1, env });
  run.cleanups.push(() => platform.stop());
  // With one broker replica every process is named after its app.
  return { platform, processNames: Object.keys(APP_PORTS) };
}

/**
 * As the run's platform admin: a tenant with a public virtual server, an upstream source at `url`
 * under policy `approve-all` (so its tools are in the catalog as soon as they are read), and the
 * server exposing `tools`. Returns the server's MCP URL and the source as the admin API showed it.
 */
async function federate(platform, admin, { tenant, source, server }, url, tools) {
  await adminCall(platform, admin, 'POST', '/tenants', { slug: tenant, name: `Benchmark (${tenant})` }, [201]);
  const put = await adminCall(
    platform,
    admin,
    'PUT',
    `/tenants/${tenant}/upstreams/${source}`,
    { connection: { transport: 'streamable-http', url }, policy: 'approve-all' },
    [201],
  );
  if (put.upstream.health.state !== 'connected') throw new Error(`upstream ${source} is ${put.upstream.health.state}: ${JSON.stringify(put.upstream.health)}`);
  await adminCall(platform, admin, 'PUT', `/tenants/${tenant}/virtual-servers/${server}`, { title: 'Benchmark', public: true, tools }, [200, 201]);
  return { url: mcpUrl(platform.baseUrl, tenant, server), upstream: put.upstream };
}

/** The five load targets: the upstream itself, then the federated tool and the built-in one on each protocol path. */
async function loadTargets(directUrl, federatedUrl, builtinUrl) {
  const sessions = Math.max(...config.concurrency);
  const federatedCall = toolCall(FEDERATED_TOOL);
  const builtinCall = toolCall(TOOL);
  return [
    statelessTarget('direct', directUrl, toolCall(TOOL)),
    await legacyTarget('federated-legacy', federatedUrl, federatedCall, sessions),
    modernTarget('federated-modern', federatedUrl, federatedCall),
    await legacyTarget('platform-legacy', builtinUrl, builtinCall, sessions),
    modernTarget('platform-modern', builtinUrl, builtinCall),
  ];
}

/** Every target at every concurrency point after its warm-up; legacy sessions are closed after their target. */
async function measureLoad(targets) {
  const rows = [];
  console.log(
    `bench: tools/call on ${targets.map((t) => t.name).join(', ')} × c=${config.concurrency.join('/')} × ${config.durationS} s (warm-up ${config.warmupS} s)`,
  );
  for (const target of targets) {
    if (config.warmupS > 0) await load(target, warmupConnections(config.concurrency), config.warmupS);
    for (const connections of config.concurrency) {
      const row = await load(target, connections, config.durationS);
      rows.push(row);
      logPoint(row);
    }
    if (target.sessions) await Promise.all(target.sessions.map((session) => deleteLegacySession(target.url, session)));
  }
  return rows;
}

/** Socket inodes `pid` holds open, from its file descriptors (`socket:[<inode>]`). */
async function socketInodes(pid) {
  const inodes = new Set();
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const match = /^socket:\[(\d+)\]$/.exec(link);
    if (match) inodes.add(match[1]);
  }
  return inodes;
}

/**
 * The established TCP connections `pid` holds to `port` on this host: rows of /proc/net/tcp whose
 * remote port is `port`, state 01 (ESTABLISHED), and whose inode is one of the process's sockets.
 */
async function tcpConnectionsTo(pid, port) {
  const inodes = await socketInodes(pid);
  const rows = (await readFile('/proc/net/tcp', 'utf8')).trim().split('\n').slice(1);
  return rows
    .map((row) => row.trim().split(/\s+/))
    .filter(([, , remote, state, , , , , , inode]) => state === '01' && Number.parseInt(remote.split(':')[1], 16) === port && inodes.has(inode)).length;
}

/** The RSS of each named process, in bytes. */
async function rssOf(pids) {
  return Object.fromEntries(await Promise.all(Object.entries(pids).map(async ([name, pid]) => [name, await processRssBytes(pid)])));
}

/** Runs `work` on every item, at most `parallelism` at a time; resolves with the results in order. */
async function pooled(items, parallelism, work) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallelism, items.length) }, worker));
  return results;
}

/** One idle legacy client: `initialize`, `notifications/initialized`, one `tools/list` that must list the federated tool. */
async function openIdleSession(url, agent, index) {
  const session = await openLegacySession(url, agent, LEGACY_VERSION);
  const listed = await sendRaw({ url, headers: session.headers, body: JSON.stringify({ jsonrpc: '2.0', id: index + 1, method: 'tools/list' }) }, agent);
  if (listed.status !== 200 || !listed.body.includes(FEDERATED_TOOL)) throw new Error(`tools/list answered ${listed.status}: ${listed.body.slice(0, 200)}`);
  return session;
}

/**
 * Opens `config.idleSessions` legacy sessions on the federated server, leaves them idle, and reads
 * each process's RSS before and after, and the executor's TCP connections to the upstream; then
 * closes them (DELETE).
 */
async function measureIdleSessions(url, pids, upstreamPort) {
  const executorPid = pids['tool-executor'];
  const before = await rssOf(pids);
  const upstreamBefore = await tcpConnectionsTo(executorPid, upstreamPort);
  const agent = keepAliveAgent();
  const openedAt = performance.now();
  const sessions = await pooled(
    Array.from({ length: config.idleSessions }, (_, index) => index),
    OPEN_PARALLELISM,
    (index) => openIdleSession(url, agent, index),
  );
  const openSeconds = (performance.now() - openedAt) / 1000;
  await sleep(IDLE_SETTLE_MS);
  const after = await rssOf(pids);
  const upstreamWithSessions = await tcpConnectionsTo(executorPid, upstreamPort);
  const statuses = await pooled(sessions, OPEN_PARALLELISM, (session) => deleteLegacySession(url, session, agent));
  agent.destroy();
  const closed = statuses.filter((status) => status >= 200 && status < 300).length;
  console.log(`bench: ${sessions.length} idle sessions opened in ${openSeconds.toFixed(1)} s, ${closed} closed`);
  return { count: sessions.length, openSeconds, before, after, upstreamBefore, upstreamWithSessions, closed, statuses };
}

/** The `q` quantile (0..1) of sorted `values`, nearest rank. */
function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/**
 * The list_changed phase: the legacy upstream fixture (SDK 1.x, `tools.listChanged`) federated under
 * `approve-all` into its own tenant; an SDK 1.x client session on that tenant's server, its
 * `notifications/tools/list_changed` handler timed; the upstream adds a tool (the SDK notifies its
 * sessions, the executor's among them) `repeats` times, one at a time. The first change is a warm-up
 * (it also proves the client's GET stream is open). Times run from just before the upstream's
 * `addTool` to the client's handler.
 */
async function measureListChanged(platform, admin) {
  const upstream = await startLegacyUpstream();
  run.cleanups.push(() => upstream.close());
  const { url } = await federate(platform, admin, LIVE, upstream.url, [LIVE.tool]);
  await waitUntilServed(url, { ...toolCall(LIVE.tool), params: { name: LIVE.tool, arguments: { text: 'ready' } } });
  const client = new Client({ name: 'bench-list-changed', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  let waiter;
  let heard = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    heard += 1;
    waiter?.(performance.now());
    waiter = undefined;
  });
  await client.connect(transport);
  run.cleanups.push(async () => (await transport.terminateSession().catch(() => undefined), await client.close()));
  const change = async (index) => {
    const notified = new Promise((resolve) => (waiter = resolve));
    const startedAt = performance.now();
    upstream.addTool(`added_${index}`);
    const heardAt = await Promise.race([notified, sleep(10_000).then(() => undefined)]);
    await sleep(LIST_CHANGED_GAP_MS);
    return heardAt === undefined ? undefined : heardAt - startedAt;
  };
  await waitUntil(async () => (await change(`warmup_${Date.now()}`)) !== undefined, { timeoutMs: 40_000, intervalMs: 0, description: 'a first list_changed' });
  const heardBefore = heard;
  const times = [];
  for (let index = 1; index <= config.listChangedRepeats; index += 1) times.push(await change(index));
  const listed = (await client.listTools()).tools.map((tool) => tool.name);
  const items = await adminCall(platform, admin, 'GET', `/tenants/${LIVE.tenant}/upstreams/${LIVE.source}/items`, undefined, [200]);
  const approvedAdded = items.items.filter((item) => item.name.startsWith('added_') && item.status === 'approved').length;
  return { times, notifications: heard - heardBefore, listed, approvedAdded };
}

/** `a ÷ b` as `0.85×`. */
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
/** A difference in ms with its sign. */
const signedMs = (ms) => `${ms >= 0 ? '+' : ''}${ms.toFixed(2)}`;

/** Each path beside its baseline at each point; the federated paths ÷ the direct call are judged against the target. */
function comparisons(rows) {
  const pairs = [
    ['federated-legacy', 'direct'],
    ['federated-modern', 'direct'],
    ['platform-legacy', 'direct'],
    ['platform-modern', 'direct'],
    ['federated-legacy', 'platform-legacy'],
    ['federated-modern', 'platform-modern'],
  ];
  const lines = [
    '| path | baseline | c | req/s | baseline req/s | throughput ÷ baseline | p50 ms (baseline) | p50 added ms | target | judged |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |',
  ];
  for (const [path, baseline] of pairs) {
    for (const c of config.concurrency) {
      const a = findPoint(rows, path, c);
      const b = findPoint(rows, baseline, c);
      if (!a || !b || b.rps === 0) continue;
      const added = a.p50Exact - b.p50Exact;
      const [goal, met] = judge(path, baseline, c, a, b, added);
      lines.push(
        `| ${path} | ${baseline} | ${c} | ${a.rps.toFixed(0)} | ${b.rps.toFixed(0)} | ${ratio(a.rps, b.rps)} | ${a.p50Exact.toFixed(2)} (${b.p50Exact.toFixed(2)}) | ${signedMs(added)} | ${goal} | ${met} |`,
      );
    }
  }
  return lines.join('\n');
}

/** The target for this row and whether it is met: only a federated path ÷ the direct call is judged; a point with errors is not. */
function judge(path, baseline, c, a, b, addedP50) {
  if (!path.startsWith('federated-') || baseline !== 'direct') return ['—', '—'];
  const goals = [];
  let met = true;
  if (GOAL.ratioAt.includes(c)) {
    goals.push(`≥ ${GOAL.minRatio}×`);
    met &&= a.rps / b.rps >= GOAL.minRatio;
  }
  if (c === GOAL.latencyAt) {
    goals.push(`p50 +≤ ${GOAL.maxAddedP50Ms} ms`);
    met &&= addedP50 <= GOAL.maxAddedP50Ms;
  }
  if (goals.length === 0) return ['—', '—'];
  if (!isClean(a) || !isClean(b)) return [goals.join(', '), 'not judged (errors)'];
  return [goals.join(', '), met ? 'met' : 'NOT MET'];
}

const mib = (bytes) => (bytes / 2 ** 20).toFixed(1);

function memoryReport(memory, upstreamAfterLoad) {
  const lines = [
    `| process | RSS before MiB | RSS with ${memory.count} idle sessions MiB | Δ MiB | Δ per session KiB |`,
    '| --- | ---: | ---: | ---: | ---: |',
  ];
  let total = 0;
  for (const [name, before] of Object.entries(memory.before)) {
    const delta = memory.after[name] - before;
    total += delta;
    lines.push(`| ${name} | ${mib(before)} | ${mib(memory.after[name])} | ${mib(delta)} | ${(delta / 1024 / memory.count).toFixed(1)} |`);
  }
  lines.push(`| all | | | ${mib(total)} | ${(total / 1024 / memory.count).toFixed(1)} |`);
  const statuses = [...new Set(memory.statuses)].map((status) => `${status} × ${memory.statuses.filter((s) => s === status).length}`).join(', ');
  return [
    lines.join('\n'),
    `Sessions: ${memory.count} opened in ${memory.openSeconds.toFixed(1)} s (${OPEN_PARALLELISM} at a time: initialize + notifications/initialized + one tools/list each), RSS read ${IDLE_SETTLE_MS / 1000} s after the last one (VmRSS of /proc/<pid>/status); closed by DELETE: ${statuses}.`,
    `Executor's TCP connections to the upstream (ESTABLISHED, its own sockets): ${memory.upstreamBefore} before the sessions, ${memory.upstreamWithSessions} with them open, ${upstreamAfterLoad} after the load phase.`,
  ].join('\n\n');
}

function listChangedReport(result) {
  const heard = result.times.filter((time) => time !== undefined).sort((a, b) => a - b);
  const missed = result.times.length - heard.length;
  const figures =
    heard.length === 0
      ? 'no notification heard'
      : `p50 ${quantile(heard, 0.5).toFixed(1)} ms, p90 ${quantile(heard, 0.9).toFixed(1)} ms, max ${heard[heard.length - 1].toFixed(1)} ms, min ${heard[0].toFixed(1)} ms`;
  return [
    `| changes | heard | missed (10 s) | notifications | p50 ms | p90 ms | max ms |`,
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    heard.length === 0
      ? `| ${result.times.length} | 0 | ${missed} | ${result.notifications} | — | — | — |`
      : `| ${result.times.length} | ${heard.length} | ${missed} | ${result.notifications} | ${quantile(heard, 0.5).toFixed(1)} | ${quantile(heard, 0.9).toFixed(1)} | ${heard[heard.length - 1].toFixed(1)} |`,
    '',
    `From just before the upstream's \`addTool\` (SDK 1.x \`registerTool\`, which sends \`notifications/tools/list_changed\` to its sessions) to the platform client's handler: ${figures}. ` +
      `Upstream items approved by the policy: ${result.approvedAdded} added tools; the client's server lists ${JSON.stringify(result.listed)} (a virtual server exposes the tools it names, so the client is told the tenant's catalog changed, not given the new tool).`,
  ].join('\n');
}

/** The source's health as the admin API showed it after the load: a failed call says why only there. */
function healthLine(health) {
  const last = health.lastError ? `; last error: ${health.lastError.detail} (at ${health.lastError.at})` : '; no error recorded';
  return `Source \`${FEDERATED.tenant}/${FEDERATED.source}\` after the load (admin API): ${health.state} since ${health.since}${last}.`;
}

function report(rows, memory, upstreamAfterLoad, listChanged, upstreamPid, health) {
  const header = [
    ...machineLines(),
    `Tool: \`${TOOL}\` via tools/call; upstream: \`bench/sdk-server.mjs stateless\` (SDK 1.x, a new McpServer + transport per request, own process, pid ${upstreamPid}), federated as \`${FEDERATED_TOOL}\` (policy approve-all) on \`${FEDERATED.tenant}/${FEDERATED.server}\`; built-in: \`${BUILTIN.tenant}/${BUILTIN.server}\`.`,
    `${config.durationS} s per point after a ${config.warmupS} s warm-up; autocannon in the orchestrating process; p50/p99 from every 2xx answer's time (sub-millisecond). Modern protocol: ${MODERN_PROTOCOL_VERSION}; legacy: ${LEGACY_VERSION} (one session per connection).`,
    `Target (issue): federated ≥ ${GOAL.minRatio}× the direct throughput at c=${GOAL.ratioAt.join(' and c=')}, ≤ ${GOAL.maxAddedP50Ms} ms added p50 at c=${GOAL.latencyAt}.`,
  ].join('\n');
  const sections = [header];
  if (rows.length > 0) {
    sections.push(`### Federated vs direct tools/call\n\n${resultsTable(rows, { failures: 'JSON-RPC/tool errors', exact: true })}`);
    sections.push(
      `Each path beside its baseline (federated ÷ direct judged; the platform's own path shown for what federation adds over it):\n\n${comparisons(rows)}`,
    );
    if (health) sections.push(healthLine(health));
  }
  if (memory) sections.push(`### ${memory.count} idle federated legacy sessions\n\n${memoryReport(memory, upstreamAfterLoad)}`);
  if (listChanged) sections.push(`### list_changed latency (upstream → platform → legacy client)\n\n${listChangedReport(listChanged)}`);
  return `${sections.join('\n\n')}\n`;
}

let exitCode = 0;
let rows = [];
let memory;
let upstreamAfterLoad = '—';
let listChanged;
let upstream;
let healthAfterLoad;
try {
  upstream = await startSdkServer(run, 'stateless');
  const { platform, processNames } = await bootPlatform();
  const admin = await adminToken(platform);
  const federated = await federate(platform, admin, FEDERATED, upstream.url, [FEDERATED_TOOL]);
  await waitUntilServed(federated.url, toolCall(FEDERATED_TOOL));
  const pids = Object.fromEntries([...processNames.map((name) => [name, platform.pidOf(name)]), ['upstream (sdk-server)', upstream.pid]]);
  // Memory first, before the load phase grows every heap: the sessions' own cost shows more clearly.
  memory = await measureIdleSessions(federated.url, pids, upstream.port);
  const targets = await loadTargets(upstream.url, federated.url, mcpUrl(platform.baseUrl, BUILTIN.tenant, BUILTIN.server));
  rows = await measureLoad(targets);
  upstreamAfterLoad = await tcpConnectionsTo(pids['tool-executor'], upstream.port);
  healthAfterLoad = (await adminCall(platform, admin, 'GET', `/tenants/${FEDERATED.tenant}/upstreams/${FEDERATED.source}`, undefined, [200])).health;
  console.log(`bench: list_changed × ${config.listChangedRepeats}`);
  listChanged = await measureListChanged(platform, admin);
} catch (error) {
  console.error(`bench: could not run: ${error.stack ?? error}`);
  exitCode = 2;
} finally {
  await run.stopEverything();
}

if (rows.length > 0 || memory || listChanged) {
  const text = report(rows, memory, upstreamAfterLoad, listChanged, upstream?.pid, healthAfterLoad);
  console.log(`\n${text}`);
  if (config.resultsFile)
    appendResults(config.resultsFile, text, '# Benchmark results\n\nOutput of the bench scripts, recorded as printed. Method and caveats: README.md.\n');
}
process.exit(exitCode);
