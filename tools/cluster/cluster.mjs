// The distributed platform as local processes (DESIGN.md §5): the five apps, each `node
// apps/<app>/dist/main.js`, against one NATS (JetStream on) and one PostgreSQL. Used by
// `npm run start:cluster` (tools/dev-cluster.mjs) and by the e2e tests (`startCluster`).
// Needs `npm run build` first: it runs what swc wrote to each app's dist/.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The workspace root (this file is tools/cluster/cluster.mjs). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/mcp_platform';
export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

/** Each app and the port it listens on by default (its env schema's default). */
export const APP_PORTS = Object.freeze({
  'session-broker': 3000,
  'authorization-server': 3101,
  'tool-executor': 3102,
  'resource-store': 3103,
  'task-scheduler': 3104,
});

/** Lines of each process's output kept to explain a failure. */
const LOG_TAIL_LINES = 40;
/**
 * How long a process gets to drain after SIGTERM before SIGKILL: its own grace for calls in flight
 * (`SHUTDOWN_GRACE_SECONDS`, 10 s by default) and the time to close after it.
 */
const STOP_GRACE_MS = 20_000;

/**
 * The processes to start: the four single apps, then the broker replicas. Brokers use 3000+i on
 * `standard` ports; `free` ports (tests) take ports the OS says are unused, so a run never collides
 * with a platform already running on the machine.
 * @param {{ brokerReplicas: number, ports: 'standard' | 'free', freePort?: () => Promise<number> }} options
 * @returns {Promise<{ app: string, name: string, port: number }[]>}
 */
export async function planProcesses({ brokerReplicas, ports, freePort = findFreePort }) {
  if (!Number.isInteger(brokerReplicas) || brokerReplicas < 1 || brokerReplicas > 16) {
    throw new Error(`brokerReplicas must be an integer from 1 to 16, got ${brokerReplicas}`);
  }
  const portFor = async (/** @type {number} */ standard) => (ports === 'standard' ? standard : freePort());
  const plan = [];
  for (const app of ['tool-executor', 'authorization-server', 'resource-store', 'task-scheduler']) {
    plan.push({ app, name: app, port: await portFor(APP_PORTS[/** @type {keyof typeof APP_PORTS} */ (app)]) });
  }
  for (let replica = 0; replica < brokerReplicas; replica++) {
    plan.push({
      app: 'session-broker',
      name: brokerReplicas === 1 ? 'session-broker' : `session-broker-${replica + 1}`,
      port: await portFor(APP_PORTS['session-broker'] + replica),
    });
  }
  return plan;
}

/**
 * The environment of one process: the caller's environment and `env`, then what makes this process
 * itself (port, loopback address, a broker's replica id) and how the apps find each other's public
 * URLs. Every broker replica gets the same PUBLIC_URL (the first broker's, unless the caller names a
 * load balancer's): it is the canonical MCP URL, so the token audience (RFC 8707), whichever replica
 * a request reaches. Every broker replica also gets the same REQUEST_STATE_KEYS (the keys sealing the
 * modern era's `requestState`, which any replica must open); no other app gets them.
 * @param {{ app: string, name: string, port: number }} entry
 * @param {Record<string, string | undefined>} env
 * @param {{ app: string, name: string, port: number }[]} plan every process of the cluster
 * @returns {Record<string, string | undefined>}
 */
export function processEnv(entry, env, plan = [entry]) {
  const { REQUEST_STATE_KEYS, ...shared } = env;
  // Loopback only (S-73): the health checks and the printed URLs assume it. JSON records: the caller
  // reads the apps' output from pipes and prints it its own way.
  const own = { HOST: '127.0.0.1', PORT: String(entry.port), LOG_FORMAT: 'json' };
  const { mcpPublicUrl, authPublicUrl } = publicUrls(env, plan);
  if (entry.app === 'session-broker') {
    // The caller lists the virtual servers itself (`listVirtualServers`): a broker's own announcement
    // would come after start:cluster's ready banner.
    Object.assign(own, {
      REPLICA_ID: entry.name,
      PUBLIC_URL: mcpPublicUrl,
      AUTH_ISSUER: env.AUTH_ISSUER ?? `${authPublicUrl}/oauth`,
      ANNOUNCE_VIRTUAL_SERVERS: 'false',
    });
    if (REQUEST_STATE_KEYS !== undefined) Object.assign(own, { REQUEST_STATE_KEYS });
  }
  if (entry.app === 'authorization-server') {
    Object.assign(own, { AUTH_PUBLIC_URL: authPublicUrl, MCP_PUBLIC_URL: mcpPublicUrl });
  }
  return { ...shared, ...own };
}

/**
 * Where clients reach the brokers and the authorization server: the caller's PUBLIC_URL and
 * AUTH_PUBLIC_URL, else the first broker's and the authorization server's own loopback address.
 * @param {Record<string, string | undefined>} env
 * @param {{ app: string, port: number }[]} plan
 */
export function publicUrls(env, plan) {
  const firstBroker = plan.find((entry) => entry.app === 'session-broker');
  const authorizationServer = plan.find((entry) => entry.app === 'authorization-server');
  return {
    mcpPublicUrl: (env.PUBLIC_URL ?? (firstBroker ? `http://127.0.0.1:${firstBroker.port}` : '')).replace(/\/+$/, ''),
    authPublicUrl: (env.AUTH_PUBLIC_URL ?? (authorizationServer ? `http://127.0.0.1:${authorizationServer.port}` : '')).replace(/\/+$/, ''),
  };
}

/**
 * Creates the database of `databaseUrl` when it is missing, through the server's `postgres` database.
 * @param {string} databaseUrl
 */
export async function ensureDatabase(databaseUrl) {
  const { default: pg } = await import('pg');
  const target = new URL(databaseUrl);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error(`DATABASE_URL names no database: ${redact(databaseUrl)}`);
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`PostgreSQL is not reachable at ${redact(admin.toString())}: ${errorMessage(error)}`);
  }
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return { created: false, name };
    try {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    } catch (error) {
      // Another runner created it between our look and our CREATE: that is what we wanted.
      if (/** @type {{ code?: string }} */ (error).code !== '42P04') throw error;
    }
    return { created: true, name };
  } finally {
    await client.end();
  }
}

/**
 * Starts the five apps as child processes and resolves once every one answers `/health/ready`. If a
 * process exits before that, the others are stopped and the error carries its last log lines.
 *
 * @param {{
 *   env?: Record<string, string | undefined>,
 *   brokerReplicas?: number,
 *   ports?: 'standard' | 'free',
 *   readyTimeoutMs?: number,
 *   onLog?: (name: string, line: string) => void,
 *   root?: string,
 * }} [options] `env` is added to this process's environment for every app (`DATABASE_URL`,
 *   `NATS_URL`, a bucket prefix...); `ports` defaults to `free` (tests), the CLI uses `standard`.
 * @returns {Promise<{
 *   brokerUrls: string[],
 *   publicUrl: string,
 *   authUrl: string,
 *   issuer: string,
 *   demoUser: { username: string, password: string },
 *   adminUser?: { username: string, password: string },
 *   processes: { name: string, app: string, port: number, pid: number | undefined }[],
 *   exited: Promise<{ name: string, code: number | null, signal: string | null, tail: string[] }>,
 *   listVirtualServers(): Promise<{ tenant: string, name: string, title?: string, public: boolean, url: string }[]>,
 *   signalBroker(index: number, signal: NodeJS.Signals): Promise<{ code: number | null, signal: string | null }>,
 *   signalProcess(name: string, signal: NodeJS.Signals): Promise<{ code: number | null, signal: string | null }>,
 *   restartProcess(name: string, readyTimeoutMs?: number): Promise<void>,
 *   stop(signal?: NodeJS.Signals): Promise<void>,
 * }>}
 */
export async function startCluster(options = {}) {
  // A free port is found by binding and releasing it, so another process on the machine may take it
  // before our app binds it (EADDRINUSE at start). With free ports, start again on new ones.
  const attempts = (options.ports ?? 'free') === 'free' ? PORT_RACE_ATTEMPTS : 1;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startClusterOnce(options);
    } catch (error) {
      if (attempt >= attempts || !isPortRace(error)) throw error;
      options.onLog?.('cluster', `a port was taken before its app bound it; starting again on new ports (attempt ${attempt + 1} of ${attempts})`);
    }
  }
}

/** How often `startCluster` starts again when a free port was taken before its app bound it. */
const PORT_RACE_ATTEMPTS = 3;

/** Whether a start failed because an app could not bind its port. @param {unknown} error */
export function isPortRace(error) {
  return error instanceof Error && /EADDRINUSE|port \d+ is in use/.test(error.message);
}

/**
 * The error of a start that failed because a process exited: its message carries the process's last
 * lines, `failure` the same as data (for a caller that already showed the output, e.g. the dev script).
 */
export class ProcessExitedError extends Error {
  /** @param {{ name: string, code: number | null, signal: string | null, tail: string[] }} failure @param {string} when */
  constructor(failure, when) {
    super(`${failure.name} exited ${when} (${exitDescription(failure)}); its last lines:\n${failure.tail.map((line) => `  ${line}`).join('\n')}`);
    this.name = 'ProcessExitedError';
    this.failure = failure;
  }
}

/** `exit code 1` or `signal SIGKILL`. @param {{ code: number | null, signal: string | null }} exit */
export function exitDescription({ code, signal }) {
  return signal ? `signal ${signal}` : `exit code ${code}`;
}

/** One attempt of `startCluster`. @param {Parameters<typeof startCluster>[0]} options */
async function startClusterOnce(options = {}) {
  const root = options.root ?? REPO_ROOT;
  const env = { ...process.env, ...options.env };
  env.DATABASE_URL ??= DEFAULT_DATABASE_URL;
  env.NATS_URL ??= DEFAULT_NATS_URL;
  // The seeded demo user's password: the caller's, or a fresh one the handle reports (never a constant).
  env.DEMO_USER_PASSWORD ??= randomBytes(12).toString('base64url');
  // One key for every broker replica, so a retry of a multi round-trip request may reach any of them.
  env.REQUEST_STATE_KEYS ??= `cluster:${randomBytes(32).toString('base64url')}`;
  const plan = await planProcesses({ brokerReplicas: options.brokerReplicas ?? 1, ports: options.ports ?? 'free' });

  const missing = [...new Set(plan.map((entry) => entry.app))].filter((app) => !existsSync(join(root, 'apps', app, 'dist', 'main.js')));
  if (missing.length) throw new Error(`not built: ${missing.map((app) => `apps/${app}/dist/main.js`).join(', ')} (run \`npm run build\` first)`);
  await ensureDatabase(env.DATABASE_URL);

  /** @type {{ entry: { app: string, name: string, port: number }, child: import('node:child_process').ChildProcess, tail: string[], done: Promise<{ code: number | null, signal: string | null }> }[]} */
  const running = [];
  let stopping = false;
  /** Processes the caller signalled (`signalBroker`, `signalProcess`): their exit is expected, not a failure. */
  const signalled = new Set();
  /** @type {(value: { name: string, code: number | null, signal: string | null, tail: string[] }) => void} */
  let reportExit = () => {};
  const exited = new Promise((resolve) => (reportExit = resolve));

  const stop = async (/** @type {NodeJS.Signals} */ signal = 'SIGTERM') => {
    stopping = true;
    await Promise.all(running.map((proc) => stopProcess(proc.child, proc.done, signal)));
  };
  const killAll = () => {
    for (const proc of running) if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
  };
  // Children run in their own process groups (so a terminal's Ctrl+C reaches them once, through us);
  // never leave one behind if this process goes away.
  process.once('exit', killAll);

  /**
   * Spawns the process of `entry` and tracks it in `running` (in place of its previous process, if any).
   * @param {{ app: string, name: string, port: number }} entry
   */
  const launch = (entry) => {
    const child = spawn(process.execPath, [join('apps', entry.app, 'dist', 'main.js')], {
      cwd: root,
      env: processEnv(entry, env, plan),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    /** @type {string[]} */
    const tail = [];
    const collect = (/** @type {import('node:stream').Readable | null} */ stream) => {
      let partial = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (/** @type {string} */ chunk) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          tail.push(line);
          if (tail.length > LOG_TAIL_LINES) tail.shift();
          options.onLog?.(entry.name, line);
        }
      });
    };
    collect(child.stdout);
    collect(child.stderr);
    const done = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        resolve({ code, signal });
        if (!stopping && !signalled.has(child)) reportExit({ name: entry.name, code, signal, tail: [...tail] });
      });
      child.once('error', (error) => {
        tail.push(`spawn failed: ${error.message}`);
        resolve({ code: null, signal: null });
        if (!stopping) reportExit({ name: entry.name, code: null, signal: null, tail: [...tail] });
      });
    });
    const proc = { entry, child, tail, done: /** @type {Promise<{ code: number | null, signal: string | null }>} */ (done) };
    const previous = running.findIndex((other) => other.entry.name === entry.name);
    if (previous === -1) running.push(proc);
    else running[previous] = proc;
    return proc;
  };
  /** The process now running under `name`. @param {string} name */
  const processNamed = (name) => {
    const proc = running.find(({ entry }) => entry.name === name);
    if (proc === undefined) throw new RangeError(`no process named ${name}: the cluster has ${running.map(({ entry }) => entry.name).join(', ')}`);
    return proc;
  };
  /** Sends `signal` to the process `name`; its exit is expected, not reported on `exited`. @param {string} name @param {NodeJS.Signals} signal */
  const signalProcess = async (name, signal) => {
    const proc = processNamed(name);
    signalled.add(proc.child);
    await stopProcess(proc.child, proc.done, signal);
    return proc.done;
  };

  for (const entry of plan) launch(entry);

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  const failedEarly = exited.then((failure) => {
    throw new ProcessExitedError(failure, 'during start');
  });
  try {
    await Promise.race([
      Promise.all(running.map(({ entry }) => waitReady(`http://127.0.0.1:${entry.port}/health/ready`, entry.name, deadline, () => stopping))),
      failedEarly,
    ]);
  } catch (error) {
    await stop();
    process.removeListener('exit', killAll);
    throw error;
  }
  failedEarly.catch(() => undefined);

  const brokers = plan.filter((entry) => entry.app === 'session-broker');
  const brokerUrls = brokers.map((entry) => `http://127.0.0.1:${entry.port}`);
  const { mcpPublicUrl: publicUrl, authPublicUrl } = publicUrls(env, plan);
  return {
    brokerUrls,
    publicUrl,
    authUrl: authPublicUrl,
    issuer: env.AUTH_ISSUER ?? `${authPublicUrl}/oauth`,
    demoUser: { username: 'demo', password: env.DEMO_USER_PASSWORD },
    ...(env.ADMIN_USERNAME && env.ADMIN_PASSWORD ? { adminUser: { username: env.ADMIN_USERNAME, password: env.ADMIN_PASSWORD } } : {}),
    /** The processes as they run now (a restarted one has a new pid). */
    get processes() {
      return running.map(({ entry, child }) => ({ name: entry.name, app: entry.app, port: entry.port, pid: child.pid }));
    },
    exited,
    listVirtualServers: () =>
      listVirtualServers({
        natsUrl: /** @type {string} */ (env.NATS_URL),
        subjectPrefix: env.NATS_SUBJECT_PREFIX ?? '',
        publicUrl,
        deadline: Date.now() + 30_000,
      }),
    /**
     * Sends `signal` to broker replica `index` (the order of `brokerUrls`) and resolves with how it
     * exited: SIGKILL is a crash, SIGTERM a rolling restart's drain (SIGKILL after the same grace as
     * `stop`). The exit is not reported on `exited`; `stop` skips a replica already gone.
     */
    async signalBroker(index, signal) {
      const broker = brokers[index];
      if (broker === undefined) throw new RangeError(`no broker replica ${index}: the cluster has ${brokers.length}`);
      return signalProcess(broker.name, signal);
    },
    /**
     * Like `signalBroker`, for any process by its name in `processes` (`tool-executor`, `task-scheduler`,
     * `session-broker-2`...): crash tests of the other apps.
     */
    signalProcess,
    /**
     * Starts the process `name` again, after `signalProcess` ended it: same port, same environment, as an
     * orchestrator restarts a crashed container. Resolves once it answers `/health/ready`.
     */
    async restartProcess(name, readyTimeoutMs = 60_000) {
      const { entry, child } = processNamed(name);
      if (child.exitCode === null && child.signalCode === null) throw new Error(`${name} is still running: signal it first`);
      const restarted = launch(entry);
      let exitedAgain = false;
      const failed = restarted.done.then(({ code, signal }) => {
        exitedAgain = true;
        throw new ProcessExitedError({ name, code, signal, tail: restarted.tail }, 'during its restart');
      });
      failed.catch(() => undefined);
      await Promise.race([waitReady(`http://127.0.0.1:${entry.port}/health/ready`, name, Date.now() + readyTimeoutMs, () => stopping || exitedAgain), failed]);
    },
    async stop(signal) {
      await stop(signal);
      process.removeListener('exit', killAll);
    },
  };
}

/**
 * Asks the tool executor for every virtual server over NATS, with the contract object of
 * `@mcp-platform/protocol-contracts` (subject and response schema in one place) and the packet format
 * of Nest's NATS transport (`{ pattern, data, id }` → `{ response: { ok, value } }`), on the subject the
 * apps serve under their `NATS_SUBJECT_PREFIX` (the messaging lib's naming). Retries until the
 * deadline: the executor may still be seeding its catalog.
 * @param {{ natsUrl: string, subjectPrefix?: string, publicUrl: string, deadline: number }} options
 */
export async function listVirtualServers({ natsUrl, subjectPrefix = '', publicUrl, deadline }) {
  const { connect, JSONCodec } = await import('nats');
  // The libs are CommonJS (swc) with namespace re-exports Node's ESM loader cannot name.
  const requireLib = createRequire(import.meta.url);
  const { toolExecutor } = requireLib('@mcp-platform/protocol-contracts');
  const { SubjectNaming } = requireLib('@mcp-platform/shared-messaging');
  const contract = toolExecutor.listVirtualServers;
  const naming = new SubjectNaming(subjectPrefix);
  const subject = naming.subjectOf(contract);
  const codec = JSONCodec();
  const connection = await connect({ servers: natsUrl.split(','), name: 'dev-cluster', inboxPrefix: naming.inboxPrefix });
  try {
    let lastError;
    while (Date.now() < deadline) {
      try {
        const packet = { pattern: contract.subject, data: contract.request.parse({}), id: `dev-cluster-${Date.now()}` };
        const message = await connection.request(subject, codec.encode(packet), { timeout: 5_000 });
        const reply = /** @type {{ response?: { ok?: boolean, value?: unknown, error?: unknown }, err?: unknown }} */ (codec.decode(message.data));
        if (!reply.response?.ok) throw new Error(`the tool executor answered an error: ${JSON.stringify(reply.err ?? reply.response?.error)}`);
        const { servers } = contract.response.parse(reply.response.value);
        const base = publicUrl.replace(/\/+$/, '');
        return servers
          .map((server) => ({
            tenant: server.tenant,
            name: server.name,
            title: server.title,
            public: server.public,
            url: `${base}/${encodeURIComponent(server.tenant)}/${encodeURIComponent(server.name)}/mcp`,
          }))
          .sort((a, b) => a.url.localeCompare(b.url));
      } catch (error) {
        lastError = error;
        await sleep(500);
      }
    }
    throw new Error(`the tool executor did not list its virtual servers: ${errorMessage(lastError)}`);
  } finally {
    await connection.close();
  }
}

/**
 * @param {import('node:child_process').ChildProcess} child
 * @param {Promise<unknown>} done
 * @param {NodeJS.Signals} signal
 */
async function stopProcess(child, done, signal) {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  try {
    await done;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * @param {string} url @param {string} name @param {number} deadline @param {() => boolean} cancelled
 */
async function waitReady(url, name, deadline, cancelled) {
  let last = 'no answer yet';
  while (!cancelled()) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return;
      last = `HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`;
    } catch (error) {
      last = errorMessage(error);
    }
    if (Date.now() > deadline) throw new Error(`${name} was not ready in time at ${url} (${last})`);
    await sleep(250);
  }
}

/** A port nobody listens on right now (the OS picks it). */
export function findFreePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port assigned'))));
    });
  });
}

/** A URL without its password, for messages. @param {string} url */
export function redact(url) {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/** @param {number} ms */
function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** @param {unknown} error */
function errorMessage(error) {
  return error instanceof Error ? error.message : String(error);
}
