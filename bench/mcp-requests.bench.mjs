#!/usr/bin/env node
// `npm run bench`: tools/call throughput and latency of the platform's distributed path next to the
// official SDK's single-process server, in one run, on this machine, each without and with
// authorization (a bearer JWT verified on every request); `BENCH_METHOD=resources/read`
// (`npm run bench:resources`) measures a small text resource's resources/read the same way.
// A benchmark, not a test: it prints a table and the ratios, and exits non-zero only when it could not
// run. See bench/README.md.
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { BENCH_RESOURCE } from './bench-resource.mjs';
import { appendResults } from './bench-results.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const config = {
  method: process.env.BENCH_METHOD ?? 'tools/call',
  durationS: Number(process.env.BENCH_DURATION_S ?? 10),
  warmupS: Number(process.env.BENCH_WARMUP_S ?? 2),
  concurrency: (process.env.BENCH_CONCURRENCY ?? '1,16,64').split(',').map(Number),
  targets: (
    process.env.BENCH_TARGETS ??
    'distributed-legacy,distributed-modern,distributed-legacy-auth,distributed-modern-auth,sdk-stateless,sdk-stateful,sdk-stateless-auth,sdk-stateful-auth'
  ).split(','),
  resultsFile: process.env.BENCH_RESULTS_FILE,
};

let testing;
try {
  testing = (await import('@mcp-platform/shared-testing')).default;
} catch (error) {
  console.error(`bench: cannot load @mcp-platform/shared-testing (run \`npm run build\` first): ${error.message}`);
  process.exit(2);
}
const {
  MODERN_PROTOCOL_VERSION,
  ProcessTracker,
  bootDistributed,
  findClusterModule,
  importClusterModule,
  modernHeaders,
  modernMeta,
  obtainToken,
  openLegacySession,
  waitUntil,
} = testing;

const TOOL = 'test_simple_text';

/**
 * What each `BENCH_METHOD` sends (params, `Mcp-Name`), what its success result holds, and how the
 * report names it.
 */
const METHODS = {
  'tools/call': {
    name: TOOL,
    params: { name: TOOL, arguments: {} },
    resultField: '"content"',
    subject: `Tool: \`${TOOL}\` via tools/call`,
    failures: 'JSON-RPC/tool errors',
  },
  'resources/read': {
    name: BENCH_RESOURCE.uri,
    params: { uri: BENCH_RESOURCE.uri },
    resultField: '"contents"',
    subject: `Resource: \`${BENCH_RESOURCE.uri}\` (${BENCH_RESOURCE.mimeType}, ${Buffer.byteLength(BENCH_RESOURCE.text)} bytes of text) via resources/read`,
    failures: 'JSON-RPC errors',
  },
};
if (!Object.hasOwn(METHODS, config.method)) {
  console.error(`bench: BENCH_METHOD must be one of ${Object.keys(METHODS).join(', ')}, not ${config.method}`);
  process.exit(2);
}
const METHOD = METHODS[config.method];
const LEGACY_VERSION = '2025-11-25';
/** The protected virtual server the `-auth` distributed targets call (created through the admin API). */
const PROTECTED = { tenant: 'conformance', server: 'protected' };
/** The issuer of the tokens the bench mints for the SDK's `-auth` targets (never contacted). */
const SDK_ISSUER = 'https://sdk-bench-issuer.invalid/oauth';
/** Each side's targets without and with authorization, for the cost-of-auth comparison. */
const AUTH_PAIRS = [
  ['distributed-legacy', 'distributed-legacy-auth'],
  ['distributed-modern', 'distributed-modern-auth'],
  ['sdk-stateless', 'sdk-stateless-auth'],
  ['sdk-stateful', 'sdk-stateful-auth'],
];
const SDK_MODES = ['stateless', 'stateful', 'stateless-auth', 'stateful-auth'];
const AUTH_LINE = `Auth (\`-auth\` targets): a bearer JWT (RS256, \`at+jwt\`, audience = the MCP URL, scope \`mcp\`) sent and checked on every request; platform: \`${PROTECTED.tenant}/${PROTECTED.server}\` with a member's token from its authorization server (its broker checks a token's signature once and remembers it, bounded, expiry and audience on every request); SDK: \`requireBearerAuth\` + jose \`jwtVerify\` on a local JWKS, the signature on every request.`;
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

/** A request body template of the bench's method; `0` is replaced by a fresh id per request (see `load`). */
function requestBody(meta) {
  const params = meta ? { ...METHOD.params, _meta: meta } : METHOD.params;
  return JSON.stringify({ jsonrpc: '2.0', id: 0, method: config.method, params });
}

/**
 * A real success: a JSON-RPC result with the method's field (`content`, `contents`) that is not a
 * tool error (JSON or SSE body).
 */
function isSuccess(body) {
  return body.includes('"result"') && body.includes(METHOD.resultField) && !body.includes('"isError":true') && !/"error"\s*:\s*\{/.test(body);
}

/** Opens one legacy session per connection, so each connection behaves like its own client. */
async function legacySessions(url, count, extraHeaders = {}) {
  const sessions = [];
  for (let index = 0; index < count; index += 1) sessions.push(await openLegacySession(url, undefined, LEGACY_VERSION, extraHeaders));
  return sessions;
}

/** Seconds the whole load phase takes (every target's warm-up and points), for the tokens' lifetime. */
function loadSeconds() {
  return config.targets.length * (config.warmupS + config.concurrency.length * config.durationS);
}

/** A token lifetime covering session setup and the whole load phase twice over, within the AS's 86 400 s cap. */
const tokenTtlSeconds = Math.min(86_400, Math.max(600, 2 * loadSeconds() + 600));

/** Calls the admin REST API (`${authUrl}/admin/v1`) and throws unless the status is expected. */
async function adminCall(platform, adminToken, method, path, body, expected) {
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
async function adminToken(platform) {
  if (platform.adminUser === undefined) throw new Error('the cluster was booted without a platform admin');
  const admin = await obtainToken({ issuer: platform.issuer, resource: `${platform.authUrl}/admin/v1`, scope: 'admin', user: platform.adminUser });
  return admin.access_token;
}

/**
 * Waits until one modern request of the bench's method succeeds at `url` (a new virtual server or
 * resource reaches the broker and the store by events and writes, not at once).
 */
async function waitUntilServed(url, extraHeaders, description) {
  const headers = { ...modernHeaders(config.method, METHOD.name), ...extraHeaders };
  await waitUntil(
    async () => {
      const response = await fetch(url, { method: 'POST', headers, body: requestBody(modernMeta()), signal: AbortSignal.timeout(5_000) });
      const body = await response.text();
      if (response.status !== 200 || !isSuccess(body)) throw new Error(`HTTP ${response.status}: ${body.slice(0, 200)}`);
      return true;
    },
    { timeoutMs: 20_000, intervalMs: 250, description: `a ${config.method} on ${url}${description}` },
  );
}

/**
 * The resource of `BENCH_METHOD=resources/read`, written through the admin API with `servers: []`
 * (every server of the tenant), so `conformance/protected` exposes it too: the conformance fixture
 * `test://static-text` is on `conformance/everything` only. Same text as that fixture.
 */
async function writeBenchResource(platform, admin) {
  const { uri, ...fields } = BENCH_RESOURCE;
  await adminCall(
    platform,
    admin,
    'PUT',
    `/tenants/${PROTECTED.tenant}/resources/by-uri?uri=${encodeURIComponent(uri)}`,
    { ...fields, servers: [] },
    [200, 201],
  );
}

/**
 * The platform side of the `-auth` targets: as the run's platform admin (`admin`, an admin-API
 * token), create the protected virtual server `conformance/protected` exposing the tool and a
 * `member` user of tenant `conformance`; then that user's access token for the server's MCP URL
 * (scope `mcp`), obtained the way a client does (DCR, PKCE, sign-in, consent, code exchange).
 */
async function protectedServerToken(platform, admin) {
  const put = await adminCall(
    platform,
    admin,
    'PUT',
    `/tenants/${PROTECTED.tenant}/virtual-servers/${PROTECTED.server}`,
    { title: 'Benchmark (protected)', public: false, tools: [TOOL] },
    [200, 201],
  );
  const url = put.server.url;
  const user = { username: `bench-member-${randomBytes(3).toString('hex')}`, password: randomBytes(18).toString('base64url') };
  await adminCall(platform, admin, 'POST', `/tenants/${PROTECTED.tenant}/users`, { ...user, roles: ['member'] }, [201]);
  const token = await obtainToken({ issuer: platform.issuer, resource: url, scope: 'mcp', user });
  if (token.expires_in !== undefined && token.expires_in < loadSeconds() + 60) {
    throw new Error(`the access token lives ${token.expires_in} s, less than the run (${loadSeconds()} s): ACCESS_TOKEN_TTL_SECONDS was not applied`);
  }
  // The broker learns of the new server by a catalog event; wait until a request with the token succeeds.
  await waitUntilServed(url, { authorization: `Bearer ${token.access_token}` }, " with the member's token");
  return { url, authorization: `Bearer ${token.access_token}` };
}

/**
 * The SDK side of the `-auth` targets: an RS256 key pair of the bench's own; the SDK servers get the
 * public JWK (env) and the bench signs each server a token like the platform's (RFC 9068 `at+jwt`,
 * audience = that server's MCP URL, scope `mcp`).
 */
async function sdkSigner() {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const kid = randomUUID();
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return {
    env: { SDK_AUTH_ISSUER: SDK_ISSUER, SDK_AUTH_JWKS: JSON.stringify({ keys: [jwk] }) },
    async authorizationFor(resource) {
      const token = await new SignJWT({ client_id: `bench-${randomUUID()}`, scope: 'mcp', tenant: PROTECTED.tenant })
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid })
        .setIssuer(SDK_ISSUER)
        .setAudience(resource)
        .setSubject(randomUUID())
        .setIssuedAt()
        .setExpirationTime(`${tokenTtlSeconds}s`)
        .setJti(randomUUID())
        .sign(privateKey);
      return `Bearer ${token}`;
    },
  };
}

async function startSdkServer(mode, env = {}) {
  const server = tracker.start(`sdk-${mode}`, process.execPath, [join(root, 'bench', 'sdk-server.mjs'), mode, '0'], {
    cwd: root,
    env: { ...process.env, ...env },
  });
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

/**
 * Each target: a URL and, per connection count, the headers each connection sends. `distributed` is
 * `{ url, protected?: { url, authorization } }`; `sdk` maps each SDK mode started to `{ url, authorization? }`.
 */
async function prepareTargets(distributed, sdk) {
  const targets = [];
  const maxConnections = Math.max(...config.concurrency);
  const legacy = async (name, url, extra) => {
    const sessions = await legacySessions(url, maxConnections, extra);
    targets.push({ name, url, body: requestBody(), headersFor: (index) => sessions[index].headers });
  };
  const modern = (name, url, extra) => {
    const headers = { ...modernHeaders(config.method, METHOD.name), ...extra };
    targets.push({ name, url, body: requestBody(modernMeta()), headersFor: () => headers });
  };
  const stateless = (name, url, extra) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LEGACY_VERSION, ...extra };
    targets.push({ name, url, body: requestBody(), headersFor: () => headers });
  };
  const bearer = (authorization) => (authorization === undefined ? {} : { authorization });
  if (config.targets.includes('distributed-legacy')) await legacy('distributed-legacy', distributed.url, {});
  if (config.targets.includes('distributed-modern')) modern('distributed-modern', distributed.url, {});
  if (config.targets.includes('distributed-legacy-auth'))
    await legacy('distributed-legacy-auth', distributed.protected.url, bearer(distributed.protected.authorization));
  if (config.targets.includes('distributed-modern-auth'))
    modern('distributed-modern-auth', distributed.protected.url, bearer(distributed.protected.authorization));
  if (sdk.stateless) stateless('sdk-stateless', sdk.stateless.url, {});
  if (sdk.stateful) await legacy('sdk-stateful', sdk.stateful.url, {});
  if (sdk['stateless-auth']) stateless('sdk-stateless-auth', sdk['stateless-auth'].url, bearer(sdk['stateless-auth'].authorization));
  if (sdk['stateful-auth']) await legacy('sdk-stateful-auth', sdk['stateful-auth'].url, bearer(sdk['stateful-auth'].authorization));
  return targets;
}

async function load(target, connections, durationS) {
  let nextClient = 0;
  let nextId = 0;
  /** The first answer that was not a success, to say on the console what went wrong. */
  let firstFailure;
  const [before, after] = target.body.split('"id":0');
  const instance = autocannon({
    url: target.url,
    connections,
    duration: durationS,
    verifyBody: (body) => {
      const success = isSuccess(body);
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
    firstFailure,
  };
}

function table(rows) {
  const lines = [
    `| target | c | req/s | p50 ms | p99 ms | requests | non-2xx | ${METHOD.failures} | socket errors | verdict |`,
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

function find(rows, name, c) {
  return rows.find((row) => row.target === name && row.connections === c);
}

/** Each distributed path ÷ each SDK mode; `suffix` '-auth' compares the targets with authorization on. */
function ratios(rows, suffix = '') {
  const lines = ['| ours | SDK | c | ratio | target | met |', '| --- | --- | ---: | ---: | ---: | --- |'];
  for (const c of config.concurrency) {
    for (const ours of [`distributed-legacy${suffix}`, `distributed-modern${suffix}`]) {
      for (const [sdk, goal] of [
        [`sdk-stateless${suffix}`, 2],
        [`sdk-stateful${suffix}`, 1],
      ]) {
        const a = find(rows, ours, c);
        const b = find(rows, sdk, c);
        if (!a || !b || b.rps === 0) continue;
        const ratio = a.rps / b.rps;
        const judged = c >= 16;
        lines.push(`| ${ours} | ${sdk} | ${c} | ${ratio.toFixed(2)}× | ${judged ? `≥ ${goal}×` : '—'} | ${judged ? (ratio >= goal ? 'yes' : 'NO') : '—'} |`);
      }
    }
  }
  return lines.join('\n');
}

/** What authorization costs each side: the target with auth beside the same target without, same run. */
function authCost(rows) {
  const lines = [
    '| without auth | with auth | c | req/s without | req/s with | with ÷ without | p50 ms without → with | p99 ms without → with |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const [plain, authorized] of AUTH_PAIRS) {
    for (const c of config.concurrency) {
      const a = find(rows, plain, c);
      const b = find(rows, authorized, c);
      if (!a || !b || a.rps === 0) continue;
      lines.push(
        `| ${plain} | ${authorized} | ${c} | ${a.rps.toFixed(0)} | ${b.rps.toFixed(0)} | ${(b.rps / a.rps).toFixed(2)}× | ${a.p50} → ${b.p50} | ${a.p99} → ${b.p99} |`,
      );
    }
  }
  return lines.length > 2 ? lines.join('\n') : undefined;
}

const rows = [];
let exitCode = 0;
try {
  const needsCluster = config.targets.some((name) => name.startsWith('distributed-'));
  const distributed = {};
  if (needsCluster) {
    const startCluster = await importClusterModule(findClusterModule(root));
    const env = {
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      ACCESS_TOKEN_TTL_SECONDS: String(tokenTtlSeconds),
      // Every connection holds a legacy session of one caller (this machine): more than the default cap
      // of 100 would end the oldest ones mid-run.
      LEGACY_SESSIONS_PER_CALLER: String(Math.max(100, 2 * Math.max(...config.concurrency))),
    };
    const platform = await bootDistributed(startCluster, { brokerReplicas: 1, env });
    cleanups.push(() => platform.stop());
    distributed.url = `${platform.baseUrl}/conformance/everything/mcp`;
    const withAuth = config.targets.some((name) => name.startsWith('distributed-') && name.endsWith('-auth'));
    const readsResource = config.method === 'resources/read';
    if (withAuth || readsResource) {
      const admin = await adminToken(platform);
      if (readsResource) {
        await writeBenchResource(platform, admin);
        await waitUntilServed(distributed.url, {}, '');
      }
      if (withAuth) distributed.protected = await protectedServerToken(platform, admin);
    }
  }
  const sdk = {};
  const signer = config.targets.some((name) => name.startsWith('sdk-') && name.endsWith('-auth')) ? await sdkSigner() : undefined;
  for (const mode of SDK_MODES) {
    if (!config.targets.includes(`sdk-${mode}`)) continue;
    const withAuth = mode.endsWith('-auth');
    const url = await startSdkServer(mode, withAuth ? signer.env : {});
    sdk[mode] = { url, ...(withAuth ? { authorization: await signer.authorizationFor(url) } : {}) };
  }
  const targets = await prepareTargets(distributed, sdk);
  console.log(
    `bench: ${config.method} on ${targets.map((t) => t.name).join(', ')} × c=${config.concurrency.join('/')} × ${config.durationS} s (warm-up ${config.warmupS} s)`,
  );
  for (const target of targets) {
    if (config.warmupS > 0) await load(target, 16, config.warmupS);
    for (const connections of config.concurrency) {
      const row = await load(target, connections, config.durationS);
      rows.push(row);
      console.log(
        `  ${row.target.padEnd(23)} c=${String(connections).padStart(2)}  ${row.rps.toFixed(0).padStart(6)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms${row.non2xx + row.rpcErrors + row.errors || row.total === 0 ? '  (errors!)' : ''}`,
      );
      if (row.firstFailure !== undefined) console.log(`    first failed answer: ${row.firstFailure.replace(/\s+/g, ' ')}`);
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
    `${METHOD.subject}; ${config.durationS} s per point after a ${config.warmupS} s warm-up; autocannon in the orchestrating process (separate from every server).`,
    `Modern protocol: ${MODERN_PROTOCOL_VERSION}; legacy: ${LEGACY_VERSION} (one session per connection).`,
    ...(rows.some((row) => row.target.endsWith('-auth')) ? [AUTH_LINE] : []),
  ].join('\n');
  const sections = [header, table(rows), `Ratios (distributed path ÷ SDK server):\n\n${ratios(rows)}`];
  const authRatios = ratios(rows, '-auth');
  if (authRatios.split('\n').length > 2) sections.push(`Ratios with authorization on (distributed path with auth ÷ SDK server with auth):\n\n${authRatios}`);
  const cost = authCost(rows);
  if (cost) sections.push(`Cost of authorization (each target with auth beside the same target without, this run):\n\n${cost}`);
  const report = `${sections.join('\n\n')}\n`;
  console.log(`\n${report}`);
  if (config.resultsFile)
    appendResults(
      config.resultsFile,
      report,
      '# Benchmark results\n\nOutput of `npm run bench` (bench/mcp-requests.bench.mjs), recorded as printed. Method and caveats: README.md.\n',
    );
}
process.exit(exitCode);
