// The official MCP conformance suite (npm @modelcontextprotocol/conformance), installed and run by
// the project itself: `run.mjs` (the conformance tier of `npm test`) drives it through these functions.
//
// - `installSuite` puts the suite and the TypeScript SDK client it drives the server with into a cache
//   on first use (npm install from the registry), one folder per suite and SDK version, so another
//   version (the 0.2 alphas) sits beside the current one. The suite's CLI needs Node 22 or later (it
//   imports `fs.globSync`); on an older Node, the npm package `node-linux-<arch>@22` brings one into
//   the same cache.
// - `runSuite` runs one leg (`conformance server --url <url> <args>`, e.g. `--suite active`,
//   `--scenario x`, `--requirements 2026-07-28`), its output and `checks.json` files in a results folder.
// - `judgeScenarios` reads those: a scenario passes when none of its checks is FAILURE (the suite's own
//   rule); with `strict`, WARNING checks and "vacuous" passes (a check that passed on the server's
//   "unknown tool" answer) fail it too. With a baseline (`--expected-failures`), the leg's verdict is the
//   suite's exit code (unexpected failures and stale entries fail it).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { arch as machineArch } from 'node:os';
import { join } from 'node:path';

/** The suite this project is tested with, and the SDK client it drives servers with. */
export const DEFAULT_SUITE_VERSION = '0.1.16';
export const DEFAULT_SDK_VERSION = '1.32.2';
/**
 * The newest suite (the 0.2 line, which tests the 2026-07-28 revision scenario by scenario and runs each
 * scenario at one wire version), run beside the current one.
 */
export const NEXT_SUITE_VERSION = '0.2.0-alpha.12';
/** The modern wire revision, and the last dated (legacy) one. */
export const MODERN_WIRE = '2026-07-28';
export const LEGACY_WIRE = '2025-11-25';
const SUITE_PACKAGE = '@modelcontextprotocol/conformance';
const SDK_PACKAGE = '@modelcontextprotocol/sdk';
/** The major version of the Node the suite's CLI needs when this one is older. */
const NODE_MAJOR = 22;

/**
 * Where the suite is cached unless `CONFORMANCE_CACHE` names another folder: inside the repository,
 * under `node_modules/.cache` (git-ignored, gone with `npm ci`).
 * @param {string} root the repository root
 */
export function defaultCacheDir(root) {
  return join(root, 'node_modules', '.cache', 'mcp-conformance');
}

/**
 * The cache folder of one suite version: `suite-<version>-sdk-<sdk version>`, or `-sdk-range` when the
 * SDK is not pinned (the suite's own dependency range decides).
 * @param {string} cacheDir @param {string} version @param {string | undefined} sdkVersion
 */
export function suiteDir(cacheDir, version, sdkVersion) {
  return join(cacheDir, `suite-${version}-sdk-${sdkVersion ?? 'range'}`);
}

/**
 * Installs (first use) or finds the suite, and a Node that can run it.
 * @param {{ cacheDir: string, version?: string, sdkVersion?: string | null, log?: (line: string) => void }} options
 *   `sdkVersion: null` leaves the SDK to the suite's own range.
 * @returns {Promise<{ node: string, cli: string, version: string, sdkVersion: string | undefined }>}
 */
export async function installSuite({ cacheDir, version = DEFAULT_SUITE_VERSION, sdkVersion = DEFAULT_SDK_VERSION, log = () => {} }) {
  const sdk = sdkVersion ?? undefined;
  const node = await ensureNode(cacheDir, log);
  const dir = suiteDir(cacheDir, version, sdk);
  const cli = join(dir, 'node_modules', ...SUITE_PACKAGE.split('/'), 'dist', 'index.js');
  if (!existsSync(cli)) {
    const packages = [`${SUITE_PACKAGE}@${version}`, ...(sdk ? [`${SDK_PACKAGE}@${sdk}`] : [])];
    log(`installing ${packages.join(' and ')} into ${dir} (first use)`);
    await npmInstallInto(dir, packages);
    if (!existsSync(cli)) throw new Error(`the suite's CLI is missing after the install: ${cli}`);
  }
  return { node, cli, version, sdkVersion: sdk };
}

/**
 * This Node when it can run the suite, else the cached Node 22 (installed on first use).
 * @param {string} cacheDir @param {(line: string) => void} log
 */
async function ensureNode(cacheDir, log) {
  if (await canRunSuite(process.execPath)) return process.execPath;
  const arch = { x64: 'x64', arm64: 'arm64' }[machineArch()];
  if (process.platform !== 'linux' || arch === undefined) {
    throw new Error(
      `the conformance suite needs Node ${NODE_MAJOR}+ (this is ${process.version}); no node-linux package fits ${process.platform}/${machineArch()}: run the tier with Node ${NODE_MAJOR}`,
    );
  }
  const dir = join(cacheDir, `node${NODE_MAJOR}`);
  const node = join(dir, 'node_modules', `node-linux-${arch}`, 'bin', 'node');
  if (!existsSync(node)) {
    log(`installing Node ${NODE_MAJOR} (npm package node-linux-${arch}@${NODE_MAJOR}) into ${dir} (first use; this Node is ${process.version})`);
    await npmInstallInto(dir, [`node-linux-${arch}@${NODE_MAJOR}`]);
  }
  if (!(await canRunSuite(node))) throw new Error(`${node} is not a usable Node ${NODE_MAJOR}`);
  return node;
}

/** Whether `node` has what the suite's CLI imports (`fs.globSync`, Node 22+). @param {string} node */
async function canRunSuite(node) {
  const { code } = await run(node, ['-e', 'process.exit(typeof require("node:fs").globSync === "function" ? 0 : 1)'], { timeoutMs: 30_000 });
  return code === 0;
}

/**
 * `npm install` of `packages` into a fresh folder, moved to `dir` when complete: an interrupted
 * install never leaves a half-filled cache entry behind.
 * @param {string} dir @param {string[]} packages
 */
async function npmInstallInto(dir, packages) {
  const staging = `${dir}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, 'package.json'), `${JSON.stringify({ name: 'mcp-conformance-cache', private: true })}\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const { code, output } = await run(npm, ['install', '--no-audit', '--no-fund', '--loglevel=error', ...packages], { cwd: staging, timeoutMs: 600_000 });
  if (code !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`npm install ${packages.join(' ')} failed (exit ${code}):\n${output.trim().split('\n').slice(-15).join('\n')}`);
  }
  // Another runner may have filled the entry meanwhile: keep theirs.
  if (existsSync(dir)) rmSync(staging, { recursive: true, force: true });
  else renameSync(staging, dir);
}

/**
 * One run of the suite's `server` command against `url`, its output kept in `<resultsDir>.log` and its
 * `checks.json` files under `resultsDir`.
 * @param {{ node: string, cli: string }} suite
 * @param {{ url: string, args: string[], resultsDir: string, timeoutMs?: number }} options `args` after
 *   `server --url <url>`: `--suite active`, `--scenario <name>`, `--expected-failures <file>`,
 *   `--spec-version <v>`, `--requirements <v>` (0.2)...
 * @returns {Promise<{ code: number, timedOut: boolean, log: string, logFile: string }>}
 */
export async function runSuite(suite, { url, args, resultsDir, timeoutMs = 300_000 }) {
  mkdirSync(resultsDir, { recursive: true });
  const result = await run(suite.node, [suite.cli, 'server', '--url', url, ...args, '-o', resultsDir], { timeoutMs });
  const logFile = `${resultsDir}.log`;
  writeFileSync(logFile, result.output);
  return { code: result.code, timedOut: result.timedOut, log: result.output, logFile };
}

/**
 * The `checks.json` of every scenario under `resultsDir` (folders `server-<scenario>-<ISO time>`).
 * @param {string} resultsDir
 * @returns {Record<string, Check[]>}
 */
export function readChecks(resultsDir) {
  /** @type {Record<string, Check[]>} */
  const checks = {};
  if (!existsSync(resultsDir)) return checks;
  for (const entry of readdirSync(resultsDir)) {
    const scenario = scenarioOfResultsFolder(entry);
    const file = join(resultsDir, entry, 'checks.json');
    if (scenario !== undefined && existsSync(file)) checks[scenario] = JSON.parse(readFileSync(file, 'utf8'));
  }
  return checks;
}

/**
 * The scenario a results folder belongs to (`server-tools-list-2026-12-01T23-02-45-952Z` → `tools-list`).
 * @param {string} folder
 */
export function scenarioOfResultsFolder(folder) {
  return /^server-(.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/.exec(folder)?.[1];
}

/** @param {string} text */
function withoutColours(text) {
  // The suite colours its output with ANSI escapes (ESC [ ... m).
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

/**
 * The scenarios the suite started, in order, from its output.
 * @param {string} log
 */
export function scenariosStarted(log) {
  return [...new Set([...withoutColours(log).matchAll(/^=== Running scenario: (\S+) ===$/gm)].map((match) => /** @type {string} */ (match[1])))];
}

/**
 * What the suite said about a baseline (`--expected-failures`): expected failures, stale entries
 * (now passing) and unexpected failures, by scenario.
 * @param {string} log
 * @returns {{ expected: string[], stale: string[], unexpected: string[] }}
 */
export function baselineVerdicts(log) {
  const verdicts = { expected: /** @type {string[]} */ ([]), stale: /** @type {string[]} */ ([]), unexpected: /** @type {string[]} */ ([]) };
  /** @type {keyof typeof verdicts | undefined} */
  let current;
  for (const line of withoutColours(log).split('\n')) {
    if (/^Expected failures \(in baseline\):$/.test(line)) current = 'expected';
    else if (/^Stale baseline entries.*:$/.test(line)) current = 'stale';
    else if (/^Unexpected failures \(not in baseline\):$/.test(line)) current = 'unexpected';
    else {
      const entry = current && /^\s+[~✓✗] (\S+)$/.exec(line);
      if (current && entry?.[1]) verdicts[current].push(entry[1]);
      else current = undefined;
    }
  }
  return verdicts;
}

/**
 * @typedef {{ id: string, name?: string, status: string, description?: string, errorMessage?: string, details?: { result?: { isError?: boolean, content?: { text?: string }[] } } & Record<string, unknown> }} Check
 * @typedef {{ scenario: string, status: 'PASS' | 'FAIL', summary: string, notes: string[] }} ScenarioVerdict
 */

/**
 * Each scenario's verdict: FAIL when a check failed or the scenario left no checks (it did not
 * complete); with `strict`, also on a WARNING check, a vacuous pass, or every check SKIPPED (a
 * scenario that showed nothing, such as an extension's when the server does not declare it). `notes`
 * say why: `x` a failed check, `!` a warning, `?` a vacuous pass, `-` all skipped.
 * @param {string[]} started the scenarios the suite started (`scenariosStarted`)
 * @param {Record<string, Check[]>} checks (`readChecks`)
 * @param {{ strict?: boolean }} [options]
 * @returns {ScenarioVerdict[]}
 */
export function judgeScenarios(started, checks, { strict = false } = {}) {
  const scenarios = [...new Set([...started, ...Object.keys(checks)])];
  return scenarios.map((scenario) => {
    const scenarioChecks = checks[scenario];
    if (scenarioChecks === undefined) return { scenario, status: 'FAIL', summary: 'no result', notes: ['x the scenario did not complete (no checks.json)'] };
    const by = (/** @type {string} */ status) => scenarioChecks.filter((check) => check.status === status);
    const [passed, failed, warnings] = [by('SUCCESS'), by('FAILURE'), by('WARNING')];
    const vacuous = passed.map(vacuousPass).filter((note) => note !== undefined);
    // Every check skipped (an extension the server does not declare, a harness the suite disabled): nothing was shown.
    const skipped = scenarioChecks.length > 0 && scenarioChecks.every((check) => check.status === 'SKIPPED');
    const notes = [
      ...failed.map((check) => `x ${check.id}: ${describeCheck(check)}`),
      ...warnings.map((check) => `! ${check.id}: ${describeCheck(check)}`),
      ...vacuous,
      ...(skipped ? [`- every check was skipped: ${describeCheck(scenarioChecks[0] ?? { id: '', status: 'SKIPPED' })}`] : []),
    ];
    const fails = failed.length > 0 || (strict && (warnings.length > 0 || vacuous.length > 0 || skipped));
    const summary = `${passed.length}/${passed.length + failed.length} checks ok${warnings.length ? `, ${warnings.length} warning(s)` : ''}`;
    return { scenario, status: fails ? 'FAIL' : 'PASS', summary, notes };
  });
}

/** @param {Check} check */
function describeCheck(check) {
  return (check.errorMessage || check.description || '').replace(/\s+/g, ' ').slice(0, 300);
}

/**
 * A check that passed only because the fixture is missing: the suite accepts the server's isError
 * "unknown tool" result, or any "not found" error, for some checks; that says nothing about the
 * requirement.
 * @param {Check} check
 * @returns {string | undefined}
 */
export function vacuousPass(check) {
  const result = check.details?.result;
  const text = result?.content?.[0]?.text ?? '';
  if ((check.id === 'tools-call-simple-text' && result?.isError === true) || (check.id === 'tools-call-error' && /not found|unknown tool/i.test(text))) {
    return `? ${check.id}: passed on an isError result "${text.slice(0, 80)}" (the tool is probably missing)`;
  }
  const missing = /(Unknown tool|Tool \S+ not found|Prompt \S+ not found)[^"]{0,60}/i.exec(JSON.stringify(check.details ?? {}));
  return missing ? `? ${check.id}: passed on the error "${missing[0]}" (the fixture is missing)` : undefined;
}

/**
 * The report of one leg: a line per scenario (`PASS|FAIL  <scenario>  k/n checks ok`) with the notes
 * of failed scenarios (and warnings and vacuous passes of the others) below it, then the baseline's
 * verdicts when there was one.
 * @param {ScenarioVerdict[]} verdicts
 * @param {{ expected: string[], stale: string[], unexpected: string[] } | undefined} baseline
 * @returns {string[]}
 */
export function reportLines(verdicts, baseline) {
  const width = Math.max(10, ...verdicts.map((verdict) => verdict.scenario.length));
  const lines = [];
  for (const verdict of verdicts) {
    lines.push(`${verdict.status}  ${verdict.scenario.padEnd(width)}  ${verdict.summary}`);
    for (const note of verdict.notes) if (verdict.status === 'FAIL' || !note.startsWith('x')) lines.push(`        ${note}`);
  }
  if (baseline) {
    for (const scenario of baseline.expected) lines.push(`# baseline: expected failure ${scenario}`);
    for (const scenario of baseline.stale) lines.push(`# baseline: STALE entry ${scenario} (it passes now: remove it from the baseline)`);
    for (const scenario of baseline.unexpected) lines.push(`# baseline: UNEXPECTED failure ${scenario}`);
  }
  return lines;
}

/**
 * One leg, judged: runs the suite, reads its results and decides. With a baseline the verdict is the
 * suite's (exit 0: only expected failures); without one, every scenario must pass (under `strict`, as
 * `judgeScenarios` says). A leg that timed out or left no scenario at all fails.
 * @param {{ node: string, cli: string }} suite
 * @param {{ url: string, args: string[], resultsDir: string, strict?: boolean, timeoutMs?: number }} options
 * @returns {Promise<{ ok: boolean, lines: string[], passed: number, failed: number }>}
 */
export async function runLeg(suite, { url, args, resultsDir, strict = false, timeoutMs }) {
  const { code, timedOut, log, logFile } = await runSuite(suite, { url, args, resultsDir, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
  const verdicts = judgeScenarios(scenariosStarted(log), readChecks(resultsDir), { strict });
  const withBaseline = args.includes('--expected-failures');
  const lines = reportLines(verdicts, withBaseline ? baselineVerdicts(log) : undefined);
  const passed = verdicts.filter((verdict) => verdict.status === 'PASS').length;
  const failed = verdicts.length - passed;
  if (timedOut) lines.push(`# the suite did not finish within ${Math.round((timeoutMs ?? 300_000) / 1000)} s`);
  if (verdicts.length === 0)
    lines.push(
      `# the suite ran no scenario; its output is in ${logFile}:`,
      ...log
        .trim()
        .split('\n')
        .slice(-10)
        .map((line) => `#   ${line}`),
    );
  const ok = !timedOut && verdicts.length > 0 && (withBaseline ? code === 0 : failed === 0);
  lines.push(`results: ${resultsDir} (suite output: ${logFile})`);
  return { ok, lines, passed, failed };
}

/**
 * The suite's server scenarios and the revisions each belongs to, from `conformance list --server`
 * (`  - tools-list [2025-06-18,2025-11-25,2026-07-28]`, `  - tasks-lifecycle [extension]`).
 * @param {string} listing
 * @returns {Map<string, string[]>}
 */
export function parseScenarioListing(listing) {
  const scenarios = new Map();
  for (const match of withoutColours(listing).matchAll(/^\s+- (\S+) \[([^\]]*)\]/gm)) {
    scenarios.set(/** @type {string} */ (match[1]), /** @type {string} */ (match[2]).split(','));
  }
  return scenarios;
}

/** @param {{ node: string, cli: string }} suite */
export async function listScenarios(suite) {
  const { code, output } = await run(suite.node, [suite.cli, 'list', '--server'], { timeoutMs: 60_000 });
  if (code !== 0) throw new Error(`the suite cannot list its scenarios (exit ${code}): ${output.trim().slice(0, 500)}`);
  return parseScenarioListing(output);
}

/**
 * The wire a scenario ran at in a leg of the 0.2 suite. Without `--spec-version` the suite runs a
 * scenario of the dated revisions at 2025-11-25 (the initialize handshake) and a 2026-only or extension
 * scenario at 2026-07-28; with `--spec-version 2026-07-28` every scenario runs at that wire.
 * @param {string[] | undefined} revisions @param {string | undefined} specVersion
 */
export function wireOf(revisions, specVersion) {
  if (specVersion !== undefined) return specVersion;
  return (revisions ?? []).some((revision) => /^\d{4}-\d\d-\d\d$/.test(revision) && revision < MODERN_WIRE) ? LEGACY_WIRE : MODERN_WIRE;
}

/**
 * The entries of a baseline file of `<scenario>@<wire>` items (`server:` then `  - name@wire` lines;
 * `#` comments and blank lines ignored).
 * @param {string} text
 * @returns {Set<string>}
 */
export function parseWireBaseline(text) {
  const entries = new Set();
  for (const line of text.split('\n')) {
    const item = /^\s+-\s+(\S+@\S+)\s*(#.*)?$/.exec(line);
    if (item?.[1]) entries.add(item[1]);
  }
  return entries;
}

/**
 * Verdicts of the 0.2 suite's legs against a baseline of expected failures: a failure not in it, or an
 * entry that passes now (stale) or never ran, fails the run.
 * @param {ScenarioVerdict[]} verdicts scenarios labelled `<scenario>@<wire>`
 * @param {Set<string>} baseline
 * @returns {{ ok: boolean, lines: string[] }}
 */
export function judgeAgainstBaseline(verdicts, baseline) {
  const lines = [];
  const seen = new Set(verdicts.map((verdict) => verdict.scenario));
  for (const verdict of verdicts) {
    if (verdict.status === 'FAIL' && baseline.has(verdict.scenario)) lines.push(`# baseline: expected failure ${verdict.scenario}`);
    else if (verdict.status === 'FAIL') lines.push(`# baseline: UNEXPECTED failure ${verdict.scenario}`);
    else if (baseline.has(verdict.scenario)) lines.push(`# baseline: STALE entry ${verdict.scenario} (it passes now: remove it from the baseline)`);
  }
  for (const entry of baseline) if (!seen.has(entry)) lines.push(`# baseline: STALE entry ${entry} (the suite no longer runs it)`);
  return { ok: !lines.some((line) => /UNEXPECTED|STALE/.test(line)), lines };
}

/**
 * The 0.2 suite, every server scenario at both wires, judged strictly: leg 1 `--suite all` (dated
 * scenarios at 2025-11-25, 2026-only and extension scenarios at 2026-07-28), leg 2 `--suite all
 * --spec-version 2026-07-28` (the scenarios of both eras again, stateless). Each scenario is labelled
 * `<scenario>@<wire>`, once; with a baseline, its expected failures are allowed (and must still fail).
 * @param {{ node: string, cli: string }} suite
 * @param {{ url: string, resultsDir: string, baseline?: Set<string>, timeoutMs?: number }} options
 * @returns {Promise<{ ok: boolean, lines: string[], passed: number, failed: number }>}
 */
export async function runBothWires(suite, { url, resultsDir, baseline, timeoutMs = 600_000 }) {
  const revisions = await listScenarios(suite);
  /** @type {ScenarioVerdict[]} */
  const verdicts = [];
  const labels = new Set();
  const lines = [];
  let ok = true;
  for (const [leg, specVersion] of /** @type {const} */ ([
    ['legacy', undefined],
    ['modern', MODERN_WIRE],
  ])) {
    const dir = join(resultsDir, leg);
    const args = ['--suite', 'all', ...(specVersion ? ['--spec-version', specVersion] : [])];
    const { timedOut, log, logFile } = await runSuite(suite, { url, args, resultsDir: dir, timeoutMs });
    if (timedOut) {
      ok = false;
      lines.push(`# leg ${leg}: the suite did not finish within ${Math.round(timeoutMs / 1000)} s (output: ${logFile})`);
    }
    const legVerdicts = judgeScenarios(scenariosStarted(log), readChecks(dir), { strict: true });
    if (legVerdicts.length === 0) {
      ok = false;
      lines.push(
        `# leg ${leg} ran no scenario; its output is in ${logFile}:`,
        ...log
          .trim()
          .split('\n')
          .slice(-10)
          .map((line) => `#   ${line}`),
      );
    }
    for (const verdict of legVerdicts) {
      const label = `${verdict.scenario}@${wireOf(revisions.get(verdict.scenario), specVersion)}`;
      if (labels.has(label)) continue;
      labels.add(label);
      verdicts.push({ ...verdict, scenario: label });
    }
  }
  lines.unshift(...reportLines(verdicts, undefined));
  const passed = verdicts.filter((verdict) => verdict.status === 'PASS').length;
  const failed = verdicts.length - passed;
  if (baseline) {
    const judged = judgeAgainstBaseline(verdicts, baseline);
    lines.push(...judged.lines);
    ok = ok && judged.ok;
  } else {
    ok = ok && failed === 0;
  }
  lines.push(`results: ${resultsDir}`);
  return { ok, lines, passed, failed };
}

/**
 * Runs `command` and collects its output (stdout and stderr interleaved); SIGKILL after `timeoutMs`.
 * @param {string} command @param {string[]} args @param {{ cwd?: string, timeoutMs: number }} options
 * @returns {Promise<{ code: number, timedOut: boolean, output: string }>}
 */
function run(command, args, { cwd, timeoutMs }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let timedOut = false;
    const collect = (/** @type {Buffer} */ chunk) => (output += chunk.toString('utf8'));
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: 127, timedOut, output: `${output}${error.message}\n` });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, timedOut, output });
    });
  });
}
