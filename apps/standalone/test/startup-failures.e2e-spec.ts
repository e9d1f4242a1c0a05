import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteBucketsWithPrefix, findRepoRoot, testInfrastructure, uniqueRunId } from '@mcp-platform/shared-testing';

const root = findRepoRoot();
const infrastructure = testInfrastructure();
const APPS = ['standalone', 'authorization-server', 'session-broker', 'tool-executor', 'resource-store', 'task-scheduler'] as const;

/** How a process ended: its exit code and what it wrote. */
interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node <script>` with exactly `env` (plus PATH) until it exits, stopping it after `timeoutMs`: a
 * start that must fail must fail by itself, and quickly.
 */
function runToExit(script: string, env: Record<string, string>, options: { cwd?: string; timeoutMs?: number } = {}): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], {
      cwd: options.cwd ?? root,
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    // SIGTERM first: the cluster script stops its apps on it (SIGKILL would leave them running).
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
      reject(new Error(`${script} did not exit within ${options.timeoutMs ?? 30_000} ms; it wrote:\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const mainOf = (app: string): string => join(root, 'apps', app, 'dist', 'main.js');

/** How often `needle` occurs in `text`. */
function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** A stack trace's frames (`    at fn (file:line:col)`): none belongs in what an operator reads. */
const STACK_FRAME = /^\s+at \S/m;

describe('a start that cannot succeed says why in one place and exits 1', () => {
  describe.each(APPS)('%s', (app) => {
    it('lists every bad key once, without a stack trace', async () => {
      const ended = await runToExit(mainOf(app), { LOG_LEVEL: 'loud', PORT: 'eighty', DATA_DIR: 'memory://' });
      expect(ended.code).toBe(1);
      const output = ended.stdout + ended.stderr;
      expect(occurrences(output, 'LOG_LEVEL'), output).toBe(1);
      expect(occurrences(output, 'PORT'), output).toBe(1);
      expect(ended.stderr).toMatch(/^invalid configuration:\n {2}- /);
      expect(output).not.toMatch(STACK_FRAME);
    });
  });

  describe.each(['standalone', 'authorization-server'])('%s', (app) => {
    it.each([
      ['ADMIN_USERNAME', { ADMIN_USERNAME: 'root' }],
      ['ADMIN_PASSWORD', { ADMIN_PASSWORD: 'a-long-enough-password' }],
    ])('refuses %s alone, naming both keys', async (_key, admin) => {
      const ended = await runToExit(mainOf(app), { ...admin, DATA_DIR: 'memory://', PORT: 'eighty' });
      expect(ended.code).toBe(1);
      expect(ended.stderr).toMatch(/ADMIN_USERNAME, ADMIN_PASSWORD: set both or neither/);
      expect(ended.stderr).toMatch(/PORT/);
      expect(ended.stderr).not.toMatch(STACK_FRAME);
    });
  });

  describe('a busy port', () => {
    let busy: Server;
    let port: number;
    const prefix = `e2e_port_${uniqueRunId()}`;

    beforeAll(async () => {
      busy = createServer();
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
      const address = busy.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      port = address.port;
    });

    afterAll(async () => {
      await new Promise((resolve) => busy.close(resolve));
      await deleteBucketsWithPrefix(infrastructure.natsUrl, prefix);
    });

    it('is named with the key that changes it (standalone)', async () => {
      const ended = await runToExit(mainOf('standalone'), { PORT: String(port), DATA_DIR: 'memory://', LOG_LEVEL: 'warn' }, { timeoutMs: 60_000 });
      expect(ended.code).toBe(1);
      expect(ended.stderr).toContain(`port ${port} is in use (set PORT to another port)`);
      expect(ended.stderr).not.toMatch(STACK_FRAME);
    });

    it('is named with the key that changes it (session-broker)', async () => {
      const env = { PORT: String(port), LOG_LEVEL: 'warn', NATS_URL: infrastructure.natsUrl, NATS_SUBJECT_PREFIX: prefix, NATS_BUCKET_PREFIX: prefix };
      const ended = await runToExit(mainOf('session-broker'), env, { timeoutMs: 60_000 });
      expect(ended.code).toBe(1);
      expect(ended.stderr).toContain(`port ${port} is in use (set PORT to another port)`);
      expect(ended.stderr).not.toMatch(STACK_FRAME);
    });
  });

  describe('.env in the working directory', () => {
    const folders: string[] = [];
    const folderWith = (dotEnv: string): string => {
      const folder = mkdtempSync(join(tmpdir(), 'mcp-dotenv-'));
      folders.push(folder);
      writeFileSync(join(folder, '.env'), dotEnv);
      return folder;
    };

    afterAll(() => {
      for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    });

    it('is read by the embedded platform, and the environment wins over it', async () => {
      const cwd = folderWith("# an operator's settings\nLOG_LEVEL=loud\nADMIN_USERNAME=root\n");
      const ended = await runToExit(mainOf('standalone'), { PORT: 'eighty', LOG_LEVEL: 'warn', DATA_DIR: 'memory://' }, { cwd });
      expect(ended.code).toBe(1);
      // ADMIN_USERNAME came from the file; LOG_LEVEL=loud did not win over the environment's warn.
      expect(ended.stderr).toMatch(/ADMIN_USERNAME, ADMIN_PASSWORD: set both or neither/);
      expect(ended.stderr).not.toMatch(/LOG_LEVEL/);
    });

    it('is read by start:cluster, whose apps refuse it: each app that says so says it once, and the script exits 1', async () => {
      const cwd = folderWith('LOG_LEVEL=loud\n');
      const ended = await runToExit(
        join(root, 'tools', 'dev-cluster.mjs'),
        { DATABASE_URL: infrastructure.databaseUrl, NATS_URL: infrastructure.natsUrl },
        { cwd, timeoutMs: 60_000 },
      );
      expect(ended.code).toBe(1);
      const output = ended.stdout + ended.stderr;
      // The first app to refuse stops the cluster, so one to five apps get to say it, each once, and
      // nothing repeats their lines.
      const reports = output.match(/^\[[a-z-]+\] +- LOG_LEVEL: Invalid option.*$/gm) ?? [];
      expect(reports.length, output).toBeGreaterThanOrEqual(1);
      expect(new Set(reports).size, output).toBe(reports.length);
      expect(occurrences(output, 'LOG_LEVEL: Invalid option'), output).toBe(reports.length);
      expect(output).toMatch(/start:cluster failed: \S+ exited during start \(exit code 1\)/);
      expect(output).not.toMatch(STACK_FRAME);
    });
  });
});
