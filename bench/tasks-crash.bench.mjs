#!/usr/bin/env node
// `npm run bench:tasks`: the task scheduler's promise at scale, checked on the distributed platform —
// "across 200 tasks with one kill -9 in the middle, every acknowledged task ends in a terminal state
// and none is lost or run twice against the rules".
//
// For each process killed (KILL=executor | broker | scheduler | all; `all` runs the three, each on a
// cluster of its own), it boots the five apps with two broker replicas (tools/cluster/cluster.mjs, as
// `npm run start:cluster`), signs the demo user in and creates TASKS tasks on `demo/default` with
// legacy (SDK 1.x, 2025-11-25) task-augmented tools/calls, alternately through the two brokers, a few at
// a time: half `long_operation` {seconds: 3, steps: 3} (idempotent), half `export_report` {seconds: 3}
// (not idempotent). Once half are acknowledged, some tasks are done and runs of both tools are under way,
// it sends SIGKILL to the process (the executor and the scheduler are restarted after a few seconds;
// after the first broker, the second one takes every request) as the second half starts being created
// (a refused creation is tried again). Then it waits, bounded, until every acknowledged task is terminal
// in the scheduler's table and reads each one back through tasks/get.
//
// Violations (exit code 1): an acknowledged task missing from the table (lost), still not terminal at
// the deadline, run more than once although not idempotent, started more than MAX_RUNS (3) times,
// completed without a recorded run, recorded with another idempotency than its tool's annotation, or
// shown by tasks/get with another status than the table's. Exit code 2: a run could not run.
// Failures are not violations: a non-idempotent run cut by the kill must fail, saying why.
//
// Run after `npm run build`: `node bench/tasks-crash.bench.mjs` (or `npm run bench:tasks`, which
// builds first). Needs PostgreSQL and NATS (JetStream on) like the integration tests. Env: TASKS (200),
// KILL (all), BENCH_RUN_CONCURRENCY (16 runs at once; the platform's default 8 would double the time),
// BENCH_CREATE_CONCURRENCY (4), BENCH_DOWN_MS (3000), BENCH_END_TIMEOUT_S (300), BENCH_LOG_LEVEL (warn),
// BENCH_RESULTS_FILE (append the report as the next `## Run N`). See bench/README.md.
import os from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import pg from 'pg';
import { appendResults } from './bench-results.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** What each `KILL` value kills, and whether the process is started again. */
const KILLS = {
  executor: { process: 'tool-executor', restart: true },
  scheduler: { process: 'task-scheduler', restart: true },
  broker: { process: 'session-broker-1', restart: false },
};

const config = {
  tasks: Number(process.env.TASKS ?? 200),
  kills: (process.env.KILL ?? 'all') === 'all' ? Object.keys(KILLS) : [process.env.KILL],
  /** Creations in flight at once (the brief's "a few at a time"). */
  createConcurrency: Number(process.env.BENCH_CREATE_CONCURRENCY ?? 4),
  /** Runs in progress at once: the tenant's limit in the scheduler and the executor's worker slots. */
  runConcurrency: Number(process.env.BENCH_RUN_CONCURRENCY ?? 16),
  /** How long a killed executor or scheduler stays down before it is started again. */
  downMs: Number(process.env.BENCH_DOWN_MS ?? 3_000),
  /** The bound on the wait for every acknowledged task to be terminal. */
  endTimeoutMs: Number(process.env.BENCH_END_TIMEOUT_S ?? 300) * 1_000,
  resultsFile: process.env.BENCH_RESULTS_FILE,
};
for (const kill of config.kills) {
  if (!Object.hasOwn(KILLS, kill)) {
    console.error(`bench: KILL must be one of ${Object.keys(KILLS).join(', ')} or all, not ${kill}`);
    process.exit(2);
  }
}
if (!Number.isInteger(config.tasks) || config.tasks < 4) {
  console.error(`bench: TASKS must be an integer of at least 4, not ${process.env.TASKS}`);
  process.exit(2);
}

let testing;
try {
  testing = (await import('@mcp-platform/shared-testing')).default;
} catch (error) {
  console.error(`bench: cannot load @mcp-platform/shared-testing (run \`npm run build\` first): ${error.message}`);
  process.exit(2);
}
const { bootDistributed, findClusterModule, importClusterModule, mcpUrl, obtainToken, waitUntil } = testing;

/** The work queue's ack wait: the jobs of a dead executor come back within seconds (as in the e2e crash tests). */
const TASK_ACK_WAIT_MS = 3_000;
/** The scheduler's limit on the starts of an idempotent task (apps/task-scheduler task-rules `MAX_RUNS`). */
const MAX_RUNS = 3;
/** A task's TTL, far past the run: an expired task would look lost. */
const TASK_TTL_MS = 30 * 60_000;
/** The two tools, alternately: one idempotent, one not (their annotations in the demo catalog). */
const TOOLS = [
  { name: 'long_operation', arguments: { seconds: 3, steps: 3 }, idempotent: true },
  { name: 'export_report', arguments: { seconds: 3 }, idempotent: false },
];
/** How long one creation is tried again while it is refused (the killed process is back well before). */
const CREATE_RETRY_WINDOW_MS = 60_000;
const CREATE_RETRY_PAUSE_MS = 500;
/** One creation's answer may wait this long (a request the scheduler took just before it died never gets one). */
const CREATE_TIMEOUT_MS = 30_000;
const TERMINAL = ['completed', 'failed', 'cancelled'];

/** The clusters started and not yet stopped, so an interrupt still stops their processes (by pid, in `stop`). */
const running = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => void Promise.allSettled([...running].map((platform) => platform.stop())).finally(() => process.exit(130)));
}

function sleep(ms) {
  return new Promise((resolveSleep) => setTimeout(resolveSleep, ms));
}

function seconds(ms) {
  return `${(ms / 1_000).toFixed(1)} s`;
}

function messageOf(error) {
  return String(error?.message ?? error)
    .replace(/\s+/g, ' ')
    .slice(0, 160);
}

/** Adds one to `key` of a count map. */
function count(map, key) {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Runs `work(item)` for every item, `size` at a time. */
async function inPool(items, size, work) {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.min(size, queue.length) }, async () => {
      while (queue.length > 0) await work(queue.shift());
    }),
  );
}

/** A legacy SDK client (1.x, 2025-11-25) on one broker replica, signed in with `headers`. */
async function openLegacy(url, headers, name) {
  const client = new Client({ name: `bench-tasks-${name}`, version: '1.0.0' });
  // A dead replica's stream errors are expected; the bench counts what the requests answer.
  client.onerror = () => undefined;
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return {
    name,
    client,
    alive: true,
    async close() {
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}

/** Every row of the scheduler's table (the cluster's own database: every row is this run's). */
async function readRows(db) {
  const found = await db.query(
    `SELECT id, status, status_message, run_open, runs_started, idempotent, call->>'name' AS tool, last_updated_at
       FROM task_scheduler.tasks`,
  );
  return new Map(found.rows.map((row) => [row.id, row]));
}

/** A gate the second half of the creations waits at until the kill. */
function gate() {
  let open;
  const opened = new Promise((resolveGate) => (open = resolveGate));
  return { opened, open };
}

/**
 * Creates `config.tasks` tasks, alternately through each live broker's client, `createConcurrency` at a
 * time; the second half waits for `secondHalf`. A refused creation is tried again (through the other
 * replica) for a while; only an answered CreateTaskResult counts as acknowledged.
 */
function createTasks(callers, secondHalf, onHalf) {
  const half = Math.ceil(config.tasks / 2);
  const acknowledged = [];
  const refusals = new Map();
  let unacknowledged = 0;
  let firstHalfSettled = 0;
  let firstSentAt;
  const settled = (index) => {
    if (index < half && (firstHalfSettled += 1) === half) onHalf();
  };
  const createOne = async (index) => {
    if (index >= half) await secondHalf;
    const tool = TOOLS[index % TOOLS.length];
    const deadline = Date.now() + CREATE_RETRY_WINDOW_MS;
    for (let attempt = 0; ; attempt += 1) {
      const live = callers.filter((caller) => caller.alive);
      const caller = live[(index + attempt) % live.length];
      firstSentAt ??= performance.now();
      try {
        const created = await caller.client.request({ method: 'tools/call', params: { name: tool.name, arguments: tool.arguments } }, CreateTaskResultSchema, {
          task: { ttl: TASK_TTL_MS },
          timeout: CREATE_TIMEOUT_MS,
        });
        acknowledged.push({ taskId: created.task.taskId, tool: tool.name, idempotent: tool.idempotent, via: caller.name });
        settled(index);
        return;
      } catch (error) {
        count(refusals, messageOf(error));
        if (Date.now() > deadline) {
          unacknowledged += 1;
          settled(index);
          return;
        }
        await sleep(CREATE_RETRY_PAUSE_MS);
      }
    }
  };
  const done = inPool(
    Array.from({ length: config.tasks }, (_, index) => index),
    config.createConcurrency,
    createOne,
  );
  return { done, acknowledged, refusals, unacknowledged: () => unacknowledged, firstSentAt: () => firstSentAt };
}

/**
 * What the table shows of the acknowledged tasks at the kill: done, runs open per tool, waiting for a
 * worker (never started).
 */
function snapshot(rows, acknowledged) {
  const mine = acknowledged.map((task) => rows.get(task.taskId)).filter(Boolean);
  const open = mine.filter((row) => row.run_open && row.status === 'working');
  return {
    acknowledged: acknowledged.length,
    openIds: new Set(open.map((row) => row.id)),
    terminal: mine.filter((row) => TERMINAL.includes(row.status)).length,
    openByTool: Object.fromEntries(TOOLS.map((tool) => [tool.name, open.filter((row) => row.tool === tool.name).length])),
    waiting: mine.filter((row) => row.status === 'working' && !row.run_open).length,
  };
}

/** The rule each table row must keep; the violations of one acknowledged task (none: `[]`). */
function violationsOf(task, row, seen) {
  if (row === undefined) return ['lost: acknowledged but missing from the table'];
  const found = [];
  if (row.idempotent !== task.idempotent) found.push(`recorded as ${row.idempotent ? '' : 'not '}idempotent, against the tool's annotation`);
  if (!TERMINAL.includes(row.status)) found.push(`not terminal: ${row.status}${row.run_open ? ' (run open)' : ''}`);
  if (!task.idempotent && row.runs_started > 1) found.push(`not idempotent, started ${row.runs_started} times`);
  if (task.idempotent && row.runs_started > MAX_RUNS) found.push(`started ${row.runs_started} times (at most ${MAX_RUNS})`);
  if (row.status === 'completed' && row.runs_started === 0) found.push('completed without a recorded run');
  if (seen !== undefined && seen.error !== undefined) found.push(`tasks/get failed: ${seen.error}`);
  else if (seen !== undefined && seen.status !== row.status) found.push(`tasks/get says ${seen.status}, the table ${row.status}`);
  return found;
}

/** One scenario: its own cluster, TASKS tasks, one kill -9 of `kind`'s process; the run's facts. */
async function runScenario(kind, startCluster) {
  const kill = KILLS[kind];
  const startedAt = performance.now();
  const env = {
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    TASK_ACK_WAIT_MS: String(TASK_ACK_WAIT_MS),
    TASK_TENANT_CONCURRENCY: String(config.runConcurrency),
    TASK_WORKER_CONCURRENCY: String(config.runConcurrency),
    ACCESS_TOKEN_TTL_SECONDS: String(3_600),
  };
  const platform = await bootDistributed(startCluster, { brokerReplicas: 2, env });
  running.add(platform);
  const callers = [];
  let db;
  try {
    const bootedMs = performance.now() - startedAt;
    const urls = platform.brokerUrls.map((base) => mcpUrl(base, 'demo', 'default'));
    // Every replica serves under the first broker's public URL: one token holds on both.
    const token = await obtainToken({ issuer: platform.issuer, resource: urls[0], scope: 'mcp', user: platform.demoUser });
    const headers = { authorization: `Bearer ${token.access_token}` };
    callers.push(await openLegacy(urls[0], headers, 'broker-1'), await openLegacy(urls[1], headers, 'broker-2'));
    db = new pg.Client({ connectionString: platform.database.url, connectionTimeoutMillis: 5_000 });
    await db.connect();

    const secondHalf = gate();
    const halfAcknowledged = gate();
    const creation = createTasks(callers, secondHalf.opened, halfAcknowledged.open);
    await halfAcknowledged.opened;
    // Mid-way: runs of both tools under way, and some tasks done unless every one acknowledged has started.
    let midway = true;
    await waitUntil(
      async () => {
        const seen = snapshot(await readRows(db), creation.acknowledged);
        return Object.values(seen.openByTool).every((open) => open > 0) && (seen.terminal > 0 || seen.waiting === 0);
      },
      { timeoutMs: 30_000, intervalMs: 200, description: 'runs of both tools under way' },
    ).catch(() => (midway = false));
    // The second half starts as the process dies: some creations are in flight through it.
    secondHalf.open();
    const killAt = Date.now();
    const exit = await platform.signalProcess(kill.process, 'SIGKILL');
    // Read once the process is dead: with the executor or the scheduler gone no run starts or ends until
    // the restart, so this is what the kill cut (a broker's death does not stop the runs).
    const atKill = snapshot(await readRows(db), creation.acknowledged);
    let restartMs;
    if (kill.restart) {
      await sleep(config.downMs);
      const restartAt = performance.now();
      await platform.restartProcess(kill.process);
      restartMs = performance.now() - restartAt;
    } else {
      callers[0].alive = false;
      await callers[0].close();
    }
    await creation.done;

    // Bounded: whatever is not terminal at the deadline is reported, not waited for.
    const ids = creation.acknowledged.map((task) => task.taskId);
    await waitUntil(
      async () => {
        const rows = await readRows(db);
        return ids.every((id) => TERMINAL.includes(rows.get(id)?.status ?? 'missing')) || undefined;
      },
      { timeoutMs: config.endTimeoutMs, intervalMs: 500, description: 'every acknowledged task to be terminal' },
    ).catch(() => undefined);
    const endedAt = performance.now();
    const rows = await readRows(db);

    // What a client sees: each acknowledged task through tasks/get on a live replica.
    const reader = callers.find((caller) => caller.alive);
    const seen = new Map();
    await inPool(creation.acknowledged, 8, async (task) => {
      try {
        const got = await reader.client.experimental.tasks.getTask(task.taskId);
        seen.set(task.taskId, { status: got.status });
      } catch (error) {
        seen.set(task.taskId, { error: messageOf(error) });
      }
    });

    const ackedIds = new Set(ids);
    const lastTerminal = Math.max(
      ...creation.acknowledged
        .map((task) => rows.get(task.taskId))
        .filter((row) => row && TERMINAL.includes(row.status))
        .map((row) => row.last_updated_at.getTime()),
    );
    return {
      kind,
      kill,
      midway,
      exit,
      restartMs,
      bootedMs,
      atKill,
      acknowledged: creation.acknowledged,
      refusals: creation.refusals,
      unacknowledged: creation.unacknowledged(),
      rows,
      seen,
      // Rows a creation left without its answer reaching the bench (the answer died with a process).
      strays: [...rows.values()].filter((row) => !ackedIds.has(row.id)),
      killToLastTerminalMs: Number.isFinite(lastTerminal) ? lastTerminal - killAt : undefined,
      totalMs: endedAt - (creation.firstSentAt() ?? endedAt),
      wallMs: performance.now() - startedAt,
    };
  } finally {
    await Promise.all(callers.filter((caller) => caller.alive).map((caller) => caller.close()));
    await db?.end().catch(() => undefined);
    await platform.stop();
    running.delete(platform);
  }
}

/** The markdown section of one run, and whether it kept the promise. */
function reportRun(run) {
  const byStatus = new Map();
  const failures = new Map();
  const runs = new Map(TOOLS.map((tool) => [tool.name, new Map()]));
  const violations = [];
  for (const task of run.acknowledged) {
    const row = run.rows.get(task.taskId);
    count(byStatus, row?.status ?? 'missing');
    if (row?.status === 'failed') count(failures, `${task.tool}: ${row.status_message ?? '(no message)'}`);
    if (row) count(runs.get(task.tool), row.runs_started);
    for (const violation of violationsOf(task, row, run.seen.get(task.taskId))) violations.push(`\`${task.taskId}\` (${task.tool}): ${violation}`);
  }
  // How the runs open at the kill ended: the scheduler's rules at work (run again if idempotent, else fail).
  const cutEnds = new Map();
  for (const task of run.acknowledged.filter((acknowledged) => run.atKill.openIds.has(acknowledged.taskId))) {
    const row = run.rows.get(task.taskId);
    count(cutEnds, `${task.tool} ${row?.status ?? 'missing'} after ${row?.runs_started ?? '?'} start(s)`);
  }
  const notTerminal = run.acknowledged.filter((task) => !TERMINAL.includes(run.rows.get(task.taskId)?.status)).length;
  const lost = byStatus.get('missing') ?? 0;
  const kept = violations.length === 0 && notTerminal === 0;
  const restarted = run.kill.restart
    ? `, started again after ${seconds(config.downMs)} (ready in ${seconds(run.restartMs)})`
    : ', not restarted: broker-2 took every request after';
  const lines = [
    `### KILL=${run.kind}: kill -9 of \`${run.kill.process}\`${restarted} — ${kept ? 'promise kept' : 'PROMISE BROKEN'}`,
    '',
    '| acknowledged | completed | failed | cancelled | not terminal | lost | violations | kill → last terminal | first creation → last terminal |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${run.acknowledged.length} | ${byStatus.get('completed') ?? 0} | ${byStatus.get('failed') ?? 0} | ${byStatus.get('cancelled') ?? 0} | ${notTerminal} | ${lost} | ${violations.length} | ${run.killToLastTerminalMs === undefined ? '—' : seconds(run.killToLastTerminalMs)} | ${seconds(run.totalMs)} |`,
    '',
    `- At the kill (${run.midway ? 'mid-way' : 'NOT mid-way: the wait for it timed out'}): ${run.atKill.acknowledged} acknowledged, ${run.atKill.terminal} terminal, runs open: ${Object.entries(
      run.atKill.openByTool,
    )
      .map(([tool, open]) => `${open} ${tool}`)
      .join(', ')}; ${run.atKill.waiting} waiting for a worker. The process ended with ${run.exit.signal ?? `code ${run.exit.code}`}.`,
    `- The runs open at the kill ended: ${cutEnds.size === 0 ? 'none was open' : [...cutEnds].map(([end, n]) => `${n} ${end}`).join('; ')}.`,
    `- Creations: ${run.acknowledged.length} of ${config.tasks} acknowledged (${TOOLS.map((tool) => `${run.acknowledged.filter((task) => task.tool === tool.name).length} ${tool.name}`).join(', ')}; ${['broker-1', 'broker-2'].map((broker) => `${run.acknowledged.filter((task) => task.via === broker).length} through ${broker}`).join(', ')}), ${run.unacknowledged} given up; ${[...run.refusals.values()].reduce((sum, n) => sum + n, 0)} refused attempts (tried again)${run.refusals.size === 0 ? '.' : ':'}`,
    ...[...run.refusals].map(([message, n]) => `  - ${n} × ${message}`),
    `- Rows never acknowledged (a creation whose answer was lost, then tried again): ${run.strays.length}${run.strays.length === 0 ? '' : ` (${[...new Set(run.strays.map((row) => row.status))].map((status) => `${run.strays.filter((row) => row.status === status).length} ${status}`).join(', ')})`}.`,
    '',
    '| tool | runs_started = 0 | 1 | 2 | 3 | more |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...TOOLS.map((tool) => {
      const spread = runs.get(tool.name);
      const more = [...spread].filter(([n]) => n > 3).reduce((sum, [, n]) => sum + n, 0);
      return `| ${tool.name} (${tool.idempotent ? 'idempotent' : 'not idempotent'}) | ${[0, 1, 2, 3].map((n) => spread.get(n) ?? 0).join(' | ')} | ${more} |`;
    }),
    '',
    failures.size === 0 ? '- Failures: none.' : '- Failures, by tool and message:',
    ...[...failures].map(([message, n]) => `  - ${n} × ${message}`),
    violations.length === 0 ? '- Violations: none.' : `- Violations (${violations.length}${violations.length > 20 ? ', the first 20' : ''}):`,
    ...violations.slice(0, 20).map((violation) => `  - ${violation}`),
    `- Wall time of the run, boot (${seconds(run.bootedMs)}) and stop included: ${seconds(run.wallMs)}.`,
  ];
  return { text: lines.join('\n'), kept };
}

const sections = [];
let broken = false;
let failedToRun = false;
const startCluster = await importClusterModule(findClusterModule(root));
console.log(`bench: ${config.tasks} tasks per run, kill -9 of ${config.kills.join(', ')}`);
for (const kind of config.kills) {
  try {
    const run = await runScenario(kind, startCluster);
    const { text, kept } = reportRun(run);
    broken ||= !kept;
    sections.push(text);
    console.log(`  KILL=${kind}: ${kept ? 'kept' : 'BROKEN'} (${seconds(run.wallMs)})`);
  } catch (error) {
    failedToRun = true;
    sections.push(`### KILL=${kind}: could not run\n\n\`\`\`\n${error.stack ?? error}\n\`\`\``);
    console.error(`bench: KILL=${kind} could not run: ${error.stack ?? error}`);
  }
}

const cpus = os.cpus();
const header = [
  `Date: ${new Date().toISOString()}`,
  `Machine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`,
  `Per run: a cluster of its own (2 broker replicas), ${config.tasks} legacy task-augmented tools/calls on \`demo/default\` (${TOOLS.map((tool) => `\`${tool.name}\` ${JSON.stringify(tool.arguments)}`).join(' and ')}, alternately), ${config.createConcurrency} creations at a time through both brokers; TASK_ACK_WAIT_MS=${TASK_ACK_WAIT_MS}, ${config.runConcurrency} runs at once (TASK_TENANT_CONCURRENCY and TASK_WORKER_CONCURRENCY), the wait for terminal bounded at ${seconds(config.endTimeoutMs)}.`,
  `Verdict: ${failedToRun ? 'INCOMPLETE (a run could not run)' : broken ? 'PROMISE BROKEN (see the violations)' : 'every acknowledged task ended terminal; none lost, none run against the rules'}.`,
].join('\n');
const report = `${[header, ...sections].join('\n\n')}\n`;
console.log(`\n${report}`);
if (config.resultsFile)
  appendResults(
    config.resultsFile,
    report,
    '# Task crash results\n\nOutput of `npm run bench:tasks` (bench/tasks-crash.bench.mjs), recorded as printed. Method: README.md.\n',
  );
process.exit(broken ? 1 : failedToRun ? 2 : 0);
