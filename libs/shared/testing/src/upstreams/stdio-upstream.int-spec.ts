import { execFile, spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findRepoRoot } from '../platform/repo-root';
import { legacyStdioUpstreamCommand, STDIO_UPSTREAM_READY_LINE, stdioUpstreamEntry } from './stdio-upstream-command';
import { CATALOG_TOOL_NAMES } from './upstream-catalog';

const run = promisify(execFile);

/** Newest modification time of the sources the built entry comes from. */
function newestSource(): number {
  const folder = __dirname;
  return Math.max(
    ...readdirSync(folder)
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.spec.ts'))
      .map((name) => statSync(join(folder, name)).mtimeMs),
  );
}

/** Builds the lib (its own swc build, the one `npm run build` runs) when dist/ is missing or older than the sources. */
async function ensureBuilt(): Promise<void> {
  let built = 0;
  try {
    built = statSync(stdioUpstreamEntry()).mtimeMs;
  } catch {
    // Not built yet.
  }
  if (built >= newestSource()) return;
  const libRoot = dirname(dirname(__dirname));
  await run('npm', ['run', 'build', '--workspace', libRoot], { cwd: findRepoRoot(libRoot), timeout: 60_000 });
}

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((block) => block.text ?? '').join('');
}

describe('legacyStdioUpstreamCommand', () => {
  const open: Client[] = [];
  beforeAll(ensureBuilt, 60_000);
  afterEach(async () => {
    await Promise.allSettled(open.splice(0).map((client) => client.close()));
  });

  it('names a built file that plain node runs', () => {
    const { command, args } = legacyStdioUpstreamCommand();
    expect(command).toBe(process.execPath);
    expect(args).toEqual([stdioUpstreamEntry()]);
    expect(args[0]).toMatch(/dist[\\/]upstreams[\\/]stdio-upstream\.js$/);
  });

  it('serves the catalog to a 1.x client over stdio', async () => {
    const transport = new StdioClientTransport({ ...legacyStdioUpstreamCommand(), stderr: 'pipe' });
    const stderr: string[] = [];
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
    const client = new Client({ name: 'fixture-spec', version: '1.0.0' });
    await client.connect(transport);
    open.push(client);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...CATALOG_TOOL_NAMES]);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'pipe' } }))).toBe('echo: pipe');
    const progress: number[] = [];
    const slow = await client.callTool({ name: 'slow', arguments: { steps: 3, stepMs: 10 } }, undefined, {
      onprogress: ({ progress: value }) => progress.push(value),
    });
    expect(textOf(slow)).toBe('done after 3 steps');
    // See the legacy spec: the 1.x client can drop the last progress that arrives with the result.
    expect([
      [1, 2],
      [1, 2, 3],
    ]).toContainEqual(progress);
    expect(await client.readResource({ uri: 'memo://one' })).toMatchObject({ contents: [{ text: 'first memo' }] });
    expect(stderr.join('')).toContain(STDIO_UPSTREAM_READY_LINE);
  });

  it('writes the ready line to stderr and exits when stdin closes', async () => {
    const { command, args } = legacyStdioUpstreamCommand();
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const ready = new Promise<void>((resolve) => child.stderr.on('data', () => stderr.includes('\n') && resolve()));
    const timeout = <T>(promise: Promise<T>, what: string) =>
      Promise.race([promise, new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error(`no ${what} within 5 s`)), 5_000))]);
    try {
      await timeout(ready, 'ready line');
      expect(stderr).toBe(`${STDIO_UPSTREAM_READY_LINE}\n`);
      child.stdin.end();
      expect(await timeout(exited, 'exit')).toBe(0);
    } finally {
      if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    }
  });
});
