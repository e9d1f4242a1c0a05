#!/usr/bin/env node
// `npm run start:cluster`: the distributed platform on this machine, five processes against a local
// NATS (JetStream on) and PostgreSQL. Environment: DATABASE_URL (created when missing), NATS_URL,
// BROKER_REPLICAS (brokers on 3000, 3001, ...), PUBLIC_URL, LOG_LEVEL; every other key is passed to
// the apps as is. Ctrl+C (or SIGTERM) stops the five apps and then this script.
import { DEFAULT_DATABASE_URL, DEFAULT_NATS_URL, redact, startCluster } from './cluster/cluster.mjs';

const replicas = Number(process.env.BROKER_REPLICAS ?? '1');
const env = {
  DATABASE_URL: process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
  NATS_URL: process.env.NATS_URL ?? DEFAULT_NATS_URL,
};
const verbose = process.env.CLUSTER_LOGS !== 'quiet';

console.log(`Starting the five apps against ${env.NATS_URL} and ${redact(env.DATABASE_URL)} (${replicas} broker${replicas === 1 ? '' : 's'})...`);

let cluster;
try {
  cluster = await startCluster({
    env,
    brokerReplicas: replicas,
    ports: 'standard',
    onLog: verbose ? (name, line) => process.stdout.write(`[${name}] ${line}\n`) : undefined,
  });
} catch (error) {
  console.error(`\nstart:cluster failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

let stopping = false;
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
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
  console.error(`\n${failure.name} exited (code ${failure.code}, signal ${failure.signal}); its last lines:`);
  for (const line of failure.tail) console.error(`  ${line}`);
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
