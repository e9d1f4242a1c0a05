#!/usr/bin/env node
// `npm run bench`: tools/call throughput and latency of the platform's distributed path next to the
// official SDK's single-process server, in one run, on this machine, each without and with
// authorization (a bearer JWT verified on every request); `BENCH_METHOD=resources/read`
// (`npm run bench:resources`) measures a small text resource's resources/read the same way.
// A benchmark, not a test: it prints a table and the ratios, and exits non-zero only when it could not
// run. See bench/README.md.
import { randomBytes, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { BENCH_RESOURCE } from './bench-resource.mjs';
import { appendResults } from './bench-results.mjs';
import {
  adminCall,
  adminToken,
  benchRun,
  findPoint,
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

const { MODERN_PROTOCOL_VERSION, bootDistributed, findClusterModule, importClusterModule, obtainToken } = testing;

const TOOL = 'test_simple_text';

/**
 * What each `BENCH_METHOD` sends (an `McpRequest` of mcp-load.mjs: params, `Mcp-Name`, what its
 * success result holds), and how the report names it.
 */
const METHODS = {
  'tools/call': {
    ...toolCall(TOOL),
    subject: `Tool: \`${TOOL}\` via tools/call`,
    failures: 'JSON-RPC/tool errors',
  },
  'resources/read': {
    method: 'resources/read',
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
const run = benchRun();

/** Seconds the whole load phase takes (every target's warm-up and points), for the tokens' lifetime. */
function loadSeconds() {
  return config.targets.length * (config.warmupS + config.concurrency.length * config.durationS);
}

/** A token lifetime covering session setup and the whole load phase twice over, within the AS's 86 400 s cap. */
const tokenTtlSeconds = Math.min(86_400, Math.max(600, 2 * loadSeconds() + 600));

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
  await waitUntilServed(url, METHOD, { authorization: `Bearer ${token.access_token}` }, " with the member's token");
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

/**
 * Each target: a URL and, per connection count, the headers each connection sends. `distributed` is
 * `{ url, protected?: { url, authorization } }`; `sdk` maps each SDK mode started to `{ url, authorization? }`.
 */
async function prepareTargets(distributed, sdk) {
  const targets = [];
  const maxConnections = Math.max(...config.concurrency);
  const legacy = async (name, url, extra) => targets.push(await legacyTarget(name, url, METHOD, maxConnections, extra));
  const modern = (name, url, extra) => targets.push(modernTarget(name, url, METHOD, extra));
  const stateless = (name, url, extra) => targets.push(statelessTarget(name, url, METHOD, extra));
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

/** Each distributed path ÷ each SDK mode; `suffix` '-auth' compares the targets with authorization on. */
function ratios(rows, suffix = '') {
  const lines = ['| ours | SDK | c | ratio | target | met |', '| --- | --- | ---: | ---: | ---: | --- |'];
  for (const c of config.concurrency) {
    for (const ours of [`distributed-legacy${suffix}`, `distributed-modern${suffix}`]) {
      for (const [sdk, goal] of [
        [`sdk-stateless${suffix}`, 2],
        [`sdk-stateful${suffix}`, 1],
      ]) {
        const a = findPoint(rows, ours, c);
        const b = findPoint(rows, sdk, c);
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
      const a = findPoint(rows, plain, c);
      const b = findPoint(rows, authorized, c);
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
    const startCluster = await importClusterModule(findClusterModule(ROOT));
    const env = {
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      ACCESS_TOKEN_TTL_SECONDS: String(tokenTtlSeconds),
      // Every connection holds a legacy session of one caller (this machine): more than the default cap
      // of 100 would end the oldest ones mid-run.
      LEGACY_SESSIONS_PER_CALLER: String(Math.max(100, 2 * Math.max(...config.concurrency))),
    };
    const platform = await bootDistributed(startCluster, { brokerReplicas: 1, env });
    run.cleanups.push(() => platform.stop());
    distributed.url = `${platform.baseUrl}/conformance/everything/mcp`;
    const withAuth = config.targets.some((name) => name.startsWith('distributed-') && name.endsWith('-auth'));
    const readsResource = config.method === 'resources/read';
    if (withAuth || readsResource) {
      const admin = await adminToken(platform);
      if (readsResource) {
        await writeBenchResource(platform, admin);
        await waitUntilServed(distributed.url, METHOD);
      }
      if (withAuth) distributed.protected = await protectedServerToken(platform, admin);
    }
  }
  const sdk = {};
  const signer = config.targets.some((name) => name.startsWith('sdk-') && name.endsWith('-auth')) ? await sdkSigner() : undefined;
  for (const mode of SDK_MODES) {
    if (!config.targets.includes(`sdk-${mode}`)) continue;
    const withAuth = mode.endsWith('-auth');
    const { url } = await startSdkServer(run, mode, withAuth ? signer.env : {});
    sdk[mode] = { url, ...(withAuth ? { authorization: await signer.authorizationFor(url) } : {}) };
  }
  const targets = await prepareTargets(distributed, sdk);
  console.log(
    `bench: ${config.method} on ${targets.map((t) => t.name).join(', ')} × c=${config.concurrency.join('/')} × ${config.durationS} s (warm-up ${config.warmupS} s)`,
  );
  for (const target of targets) {
    if (config.warmupS > 0) await load(target, warmupConnections(config.concurrency), config.warmupS);
    for (const connections of config.concurrency) {
      const row = await load(target, connections, config.durationS);
      rows.push(row);
      logPoint(row);
    }
  }
} catch (error) {
  console.error(`bench: could not run: ${error.stack ?? error}`);
  exitCode = 2;
} finally {
  await run.stopEverything();
}

if (rows.length > 0) {
  const header = [
    ...machineLines(),
    `${METHOD.subject}; ${config.durationS} s per point after a ${config.warmupS} s warm-up; autocannon in the orchestrating process (separate from every server).`,
    `Modern protocol: ${MODERN_PROTOCOL_VERSION}; legacy: ${LEGACY_VERSION} (one session per connection).`,
    ...(rows.some((row) => row.target.endsWith('-auth')) ? [AUTH_LINE] : []),
  ].join('\n');
  const sections = [header, resultsTable(rows, { failures: METHOD.failures }), `Ratios (distributed path ÷ SDK server):\n\n${ratios(rows)}`];
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
