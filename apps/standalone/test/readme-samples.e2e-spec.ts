import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootEmbedded, type EmbeddedPlatform, findRepoRoot, obtainToken, uniqueRunId } from '@mcp-platform/shared-testing';
import { loadStandaloneEnv } from '../src/config/env.schema';
import { startStandalone } from '../src/index';

/*
 * Every code sample of the README is run here as printed, or listed with the reason it is not.
 *
 * A sample is a fenced block preceded by its marker, `<!-- sample: <id> -->`. A block without a marker,
 * a marker this file does not know, or an entry here whose sample is gone fails the first test: a new
 * sample must be run, or listed with a reason.
 *
 * The samples run against an embedded platform this file boots on a free port. The one substitution:
 * the base URL `http://127.0.0.1:3000` (what `npm start` serves) becomes that platform's. What a sample
 * takes from its reader is supplied, as the README documents it:
 * - `$TOKEN` (shell): an admin token, obtained as any OAuth client does (the README's Swagger UI step
 *   is a person's; the token is the same kind);
 * - `myOAuthProvider` (TypeScript): an `OAuthClientProvider` of the test library
 *   (`ModernSdkOAuthProvider`) that plays the user in a browser: it registers by DCR and signs in as
 *   the demo user, approving, when the SDK redirects to the authorization endpoint; its
 *   `waitForCallback()` resolves with the URL the browser came back to, as the README says;
 * - the admin's credentials are the `admin-env` sample's: the platform is booted with them.
 * TypeScript samples are type-checked (strict, Node ESM, the repository's TypeScript and packages),
 * transpiled and run by Node from a folder under tmp/ of the repository.
 */

const root = findRepoRoot();
const README = join(root, 'README.md');
/** The base URL the samples name: `npm start`'s. */
const PRINTED_BASE_URL = 'http://127.0.0.1:3000';
const workDir = join(root, 'tmp', `readme-samples-${uniqueRunId()}`);

/** What the test does with one sample. */
type SampleHandling = { run: 'typescript' | 'shell'; expectOutput: RegExp } | { run: 'dotenv' } | { notRun: string };

const SAMPLES: Record<string, SampleHandling> = {
  'start-and-test': {
    notRun:
      'installs, builds and starts a server until Ctrl+C (npm start: the e2e tier boots the same apps/standalone/dist/main.js) or runs every tier (npm test: CI runs it)',
  },
  'test-services': { notRun: 'installs system packages with sudo and rewrites pg_hba.conf: what CI machines have before the tests' },
  inspector: { notRun: 'downloads MCP Inspector and opens a web page for a person to click through' },
  'admin-env': { run: 'dotenv' },
  'admin-curl': { run: 'shell', expectOutput: /"slug":"demo"/ },
  'legacy-client': { run: 'typescript', expectOutput: /test_simple_text/ },
  'modern-client': { run: 'typescript', expectOutput: /result: 35/ },
  'start-cluster': {
    notRun:
      'starts the distributed platform on the standard ports until Ctrl+C; start-output.e2e-spec.ts runs the same script, the e2e tier its startCluster()',
  },
  'docker-compose': { notRun: 'needs Docker and builds images' },
  layout: { notRun: 'a listing of folders, not code' },
};

/** One fenced block of the README. */
interface Sample {
  id: string | undefined;
  language: string;
  code: string;
  line: number;
}

/** The fenced blocks of a Markdown text, each with the marker on the last non-blank line before it. */
function readmeSamples(markdown: string): Sample[] {
  const lines = markdown.split('\n');
  const samples: Sample[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[index] ?? '');
    if (!open) continue;
    const indent = open[1]?.length ?? 0;
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length && !/^\s*```\s*$/.test(lines[index] ?? ''); index++) body.push((lines[index] ?? '').slice(indent));
    let previous = start - 1;
    while (previous >= 0 && (lines[previous] ?? '').trim() === '') previous--;
    const marker = /^<!-- sample: (\S+) -->$/.exec((lines[previous] ?? '').trim());
    samples.push({ id: marker?.[1], language: open[2] ?? '', code: `${body.join('\n')}\n`, line: start + 1 });
  }
  return samples;
}

const samples = readmeSamples(readFileSync(README, 'utf8'));

function sampleNamed(id: string): Sample {
  const sample = samples.find((candidate) => candidate.id === id);
  if (sample === undefined) throw new Error(`README.md has no sample marked ${id}`);
  return sample;
}

/** Runs `command` until it exits (SIGKILL after `timeoutMs`), collecting its output. */
function run(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs: number },
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Type errors of a TypeScript sample, with the declarations of what the test supplies. */
function typeErrors(file: string, declarations: string): string[] {
  const program = ts.createProgram([file, declarations], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

describe('README code samples', () => {
  it('are each marked, and each marker is run here or listed with the reason it is not', () => {
    const unmarked = samples.filter((sample) => sample.id === undefined).map((sample) => `README.md:${sample.line} (\`\`\`${sample.language})`);
    expect(unmarked, 'samples without a <!-- sample: id --> marker').toEqual([]);
    const ids = samples.map((sample) => sample.id ?? '');
    expect(
      ids.filter((id) => !(id in SAMPLES)),
      'markers this test does not know: run them here, or list them with a reason',
    ).toEqual([]);
    expect(
      Object.keys(SAMPLES).filter((id) => !ids.includes(id)),
      'entries whose sample is gone from README.md',
    ).toEqual([]);
    expect(new Set(ids).size, 'a marker used twice').toBe(ids.length);
  });

  describe('run as printed against an embedded platform', () => {
    let platform: EmbeddedPlatform;
    let admin: { username: string; password: string };

    beforeAll(async () => {
      mkdirSync(workDir, { recursive: true });
      const fromSample = loadStandaloneEnv(parseEnv(sampleNamed('admin-env').code));
      if (fromSample.ADMIN_USERNAME === undefined || fromSample.ADMIN_PASSWORD === undefined) throw new Error('the admin-env sample sets no admin');
      admin = { username: fromSample.ADMIN_USERNAME, password: fromSample.ADMIN_PASSWORD };
      platform = await bootEmbedded(startStandalone, { port: 0, logLevel: 'silent', adminUser: admin });
    });

    afterAll(async () => {
      await platform?.stop();
      rmSync(workDir, { recursive: true, force: true });
    });

    /** The sample's code, with the printed base URL pointing at this test's platform. */
    const codeOf = (id: string): string => sampleNamed(id).code.replaceAll(PRINTED_BASE_URL, platform.baseUrl);

    it('admin-env: is a valid configuration of the platform that signs its admin in', async () => {
      const token = await obtainToken({ issuer: platform.issuer, resource: `${platform.authUrl}/admin/v1`, scope: 'admin', user: admin });
      expect(token.access_token).toEqual(expect.any(String));
    });

    it.each(Object.entries(SAMPLES).filter(([, handling]) => 'run' in handling && handling.run === 'shell'))(
      '%s: runs in bash and prints what it should',
      async (id, handling) => {
        const token = await obtainToken({ issuer: platform.issuer, resource: `${platform.authUrl}/admin/v1`, scope: 'admin', user: admin });
        const { code, output } = await run('bash', ['-euo', 'pipefail', '-c', codeOf(id)], {
          cwd: workDir,
          env: { PATH: process.env['PATH'] ?? '', HOME: workDir, TOKEN: token.access_token },
          timeoutMs: 30_000,
        });
        expect(code, output).toBe(0);
        expect(output).toMatch((handling as { expectOutput: RegExp }).expectOutput);
      },
    );

    it.each(Object.entries(SAMPLES).filter(([, handling]) => 'run' in handling && handling.run === 'typescript'))(
      '%s: type-checks, runs with Node and prints what it should',
      async (id, handling) => {
        const source = join(workDir, `${id}.mts`);
        writeFileSync(source, codeOf(id));
        const declarations = join(workDir, 'supplied.d.mts');
        writeFileSync(
          declarations,
          [
            "import type { OAuthClientProvider } from '@modelcontextprotocol/client';",
            '/** What the README leaves to its reader: supplied by readme-samples.e2e-spec.ts. */',
            'declare global {',
            '  var myOAuthProvider: OAuthClientProvider & { waitForCallback(): Promise<string> };',
            '}',
            'export {};',
            '',
          ].join('\n'),
        );
        expect(typeErrors(source, declarations)).toEqual([]);

        const compiled = ts.transpileModule(readFileSync(source, 'utf8'), {
          compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
        });
        writeFileSync(join(workDir, `${id}.mjs`), compiled.outputText);
        writeFileSync(
          join(workDir, 'supply.mjs'),
          [
            "import testing from '@mcp-platform/shared-testing';",
            '// The browser the reader would use: it signs the demo user in and approves.',
            'globalThis.myOAuthProvider = new testing.ModernSdkOAuthProvider({',
            '  user: { username: process.env.DEMO_USERNAME, password: process.env.DEMO_PASSWORD },',
            "  registration: { kind: 'dcr' },",
            '});',
            '',
          ].join('\n'),
        );
        const { code, output } = await run(process.execPath, ['--import', './supply.mjs', `./${id}.mjs`], {
          cwd: workDir,
          env: { PATH: process.env['PATH'] ?? '', DEMO_USERNAME: platform.demoUser.username, DEMO_PASSWORD: platform.demoUser.password },
          timeoutMs: 60_000,
        });
        expect(code, output).toBe(0);
        expect(output).toMatch((handling as { expectOutput: RegExp }).expectOutput);
      },
    );
  });
});
