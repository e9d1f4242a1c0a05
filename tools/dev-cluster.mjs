#!/usr/bin/env node
// `npm run start:cluster`: the distributed platform on this machine, five processes against a local
// NATS (JetStream on) and PostgreSQL. Environment (and `.env` of the working directory, under it):
// DATABASE_URL (created when missing), NATS_URL, BROKER_REPLICAS (brokers on 3000, 3001, ...),
// PUBLIC_URL, CLUSTER_PORTS, DATA_DIR (where the demo password is kept), LOG_LEVEL, LOG_FORMAT (how
// this script prints the apps' JSON records: `pretty` lines, the default on a terminal, or the `json`
// lines as they are); every other key is passed to the apps as is. Ctrl+C (or SIGTERM) stops the five
// apps and then this script.
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { prettyFactory } from 'pino-pretty';
import { APP_PORTS, DEFAULT_DATABASE_URL, DEFAULT_NATS_URL, exitDescription, redact, startCluster } from './cluster/cluster.mjs';

try {
  process.loadEnvFile('.env');
} catch (error) {
  if (error.code !== 'ENOENT') {
    console.error(`start:cluster: cannot read .env: ${error.message}`);
    process.exit(1);
  }
}

/**
 * The demo user's password, kept in the data directory (DATA_DIR, default ./data, git-ignored: the one
 * `npm start` uses, so both modes share it) like the embedded platform's: PostgreSQL keeps the users
 * across restarts, and the password printed yesterday must still sign in. DEMO_USER_PASSWORD wins;
 * DATA_DIR=memory:// generates one for this run only (the apps are given it either way).
 */
function demoUserPassword() {
  const generate = () => randomBytes(12).toString('base64url');
  if (process.env.DEMO_USER_PASSWORD) return process.env.DEMO_USER_PASSWORD;
  const dataDir = process.env.DATA_DIR || './data';
  if (dataDir === 'memory://') return generate();
  mkdirSync(resolve(dataDir), { recursive: true, mode: 0o700 });
  const file = join(resolve(dataDir), 'demo-user-password');
  try {
    const descriptor = openSync(file, 'wx', 0o600);
    const password = generate();
    writeSync(descriptor, `${password}\n`);
    closeSync(descriptor);
    return password;
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
  }
  const stored = readFileSync(file, 'utf8').trim();
  if (!stored) throw new Error(`${file} is empty: delete it to generate a new one`);
  return stored;
}

const replicas = Number(process.env.BROKER_REPLICAS ?? '1');
const env = {
  DATABASE_URL: process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
  NATS_URL: process.env.NATS_URL ?? DEFAULT_NATS_URL,
  DEMO_USER_PASSWORD: demoUserPassword(),
};
const verbose = process.env.CLUSTER_LOGS !== 'quiet';
const logFormat = process.env.LOG_FORMAT || (process.stdout.isTTY ? 'pretty' : 'json');
// The same readable line as an embedded platform on a terminal (PRETTY_LOG_OPTIONS of shared-observability).
const pretty = prettyFactory({
  translateTime: 'SYS:HH:MM:ss',
  ignore: 'pid,hostname,context',
  messageFormat: '{if context}{context}: {end}{msg}',
  singleLine: true,
  colorize: process.stdout.isTTY === true,
});

/**
 * One line an app wrote: its JSON record as a readable line (pretty) or as it is (json; the record
 * names the app), anything else (a failed start's message on stderr) after the app's name.
 * @param {string} name @param {string} line
 */
function printAppLine(name, line) {
  if (line.startsWith('{') && line.endsWith('}')) {
    process.stdout.write(logFormat === 'pretty' ? pretty(line) : `${line}\n`);
    return;
  }
  process.stdout.write(`[${name}] ${line}\n`);
}

console.log(`Starting the five apps against ${env.NATS_URL} and ${redact(env.DATABASE_URL)} (${replicas} broker${replicas === 1 ? '' : 's'})...`);

/**
 * Why an app exited, once: its own lines are above when the apps' output is shown, else the last ones
 * here; a busy port gets the ports this script uses (it sets every app's PORT itself).
 * @param {{ name: string, code: number | null, signal: string | null, tail: string[] }} failure
 * @param {string} when
 */
function explainExit(failure, when) {
  const lines = [
    `\nstart:cluster failed: ${failure.name} exited ${when} (${exitDescription(failure)})${verbose ? '; its output is above.' : '; its last lines:'}`,
  ];
  if (!verbose) lines.push(...failure.tail.map((line) => `  ${line}`));
  const busy = failure.tail.map((line) => /port (\d+) is in use/.exec(line)?.[1]).find(Boolean);
  if (busy) {
    const ports = Object.entries(APP_PORTS)
      .map(([app, port]) => `${app} ${port}${app === 'session-broker' ? '+' : ''}`)
      .join(', ');
    lines.push(`Port ${busy} is taken by another process (another \`npm start\` or cluster?): this script runs the apps on ${ports}; stop that process first.`);
  }
  console.error(lines.join('\n'));
}

// Ctrl+C while the apps start: exit, and startCluster's exit hook kills the apps it spawned (they run
// in their own process groups, so the terminal's signal does not reach them).
const exitWhileStarting = () => process.exit(130);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(signal, exitWhileStarting);

let cluster;
try {
  cluster = await startCluster({
    env,
    brokerReplicas: replicas,
    // CLUSTER_PORTS=free: ports the OS says are unused instead of 3000/3101-3104 (tests, a second cluster).
    ports: process.env.CLUSTER_PORTS === 'free' ? 'free' : 'standard',
    onLog: verbose ? printAppLine : undefined,
  });
} catch (error) {
  if (error.failure) explainExit(error.failure, 'during start');
  else console.error(`\nstart:cluster failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.removeListener(signal, exitWhileStarting);

let stopping = false;
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the five apps...`);
    void cluster.stop(signal).then(() => process.exit(0));
  });
}

void cluster.exited.then(async (failure) => {
  if (stopping) return;
  stopping = true;
  explainExit(failure, 'while running');
  await cluster.stop();
  process.exit(1);
});

let servers = [];
try {
  servers = await cluster.listVirtualServers();
} catch (error) {
  console.error(`(could not list the virtual servers: ${error instanceof Error ? error.message : String(error)})`);
}
const width = Math.max(0, ...servers.map((server) => `${server.tenant}/${server.name}`.length));
const lines = [
  '',
  `MCP platform (distributed: ${cluster.processes.length} processes) is ready.`,
  ...cluster.processes.map((proc) => `  ${proc.name.padEnd(22)} pid ${String(proc.pid).padEnd(8)} http://127.0.0.1:${proc.port}/health/ready`),
  '',
  servers.length ? 'Virtual servers (paste a URL into an MCP client, e.g. MCP Inspector, transport "Streamable HTTP"):' : 'No virtual servers listed.',
  ...servers.map((server) => `  ${`${server.tenant}/${server.name}`.padEnd(width)}  ${server.url}${server.public ? '  (public: no sign-in)' : ''}`),
  ...(cluster.brokerUrls.length > 1 ? ['', `Every broker serves every session: ${cluster.brokerUrls.join(', ')}`] : []),
  '',
  'Protected servers ask the client to sign in (OAuth 2.1; the client opens the sign-in page in a browser):',
  `  demo user      ${cluster.demoUser.username} / ${cluster.demoUser.password}   (tenant demo)`,
  ...(cluster.adminUser ? [`  platform admin ${cluster.adminUser.username} (password from ADMIN_PASSWORD)`] : []),
  `  OAuth issuer   ${cluster.issuer}`,
  `  admin API      ${cluster.authUrl}/admin/v1   (OpenAPI: ${cluster.authUrl}/admin/docs)`,
  `Stop it with Ctrl+C (or: kill -TERM ${process.pid}).`,
  '',
];
console.log(lines.join('\n'));
