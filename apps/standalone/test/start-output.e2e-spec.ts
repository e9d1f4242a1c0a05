import { afterAll, describe, expect, it } from 'vitest';
import {
  createThrowawayDatabase,
  deleteBucketsWithPrefix,
  findRepoRoot,
  getFreePort,
  ProcessTracker,
  testInfrastructure,
  type ThrowawayDatabase,
  type TrackedProcess,
  uniqueRunId,
  waitUntil,
} from '@mcp-platform/shared-testing';

const root = findRepoRoot();
const infrastructure = testInfrastructure();
const tracker = new ProcessTracker();

/** The banner's last line, which names the pid to stop (the platform's own, not `script`'s). */
const STOP_LINE = /^Stop it with Ctrl\+C \(or: kill -TERM (\d+)\)\.$/m;
/** How long the output is watched after the banner for a late line. */
const AFTER_BANNER_MS = 2_500;
/** "A handful": what a start may print before its banner at `info`. */
const EMBEDDED_LINES_BEFORE_BANNER = 8;

/** What a start printed: the lines before the banner, the banner, and anything after it. */
interface StartOutput {
  before: string[];
  banner: string[];
  after: string[];
}

/** Terminal output as plain lines: no colours, no carriage returns. */
function plainLines(output: string): string[] {
  return output
    .replace(/\u001b\[[0-9;]*m/g, '')
    .replace(/\r/g, '')
    .split('\n');
}

/**
 * Starts `command` (under a pseudo-terminal when `terminal`, through util-linux `script`), waits for its
 * ready banner and a little longer, stops the platform by the pid its banner names, and splits what it
 * printed until then around the banner (which starts with its "is ready" line).
 */
async function startAndRead(name: string, command: string, env: Record<string, string>, terminal: boolean, readyTimeoutMs = 90_000): Promise<StartOutput> {
  const spawned: TrackedProcess = terminal
    ? tracker.start(name, 'script', ['-qfec', command, '/dev/null'], { cwd: root, env: { PATH: process.env['PATH'] ?? '', TERM: 'xterm', ...env } })
    : tracker.start(name, 'sh', ['-c', `exec ${command}`], { cwd: root, env: { PATH: process.env['PATH'] ?? '', ...env } });
  try {
    const pid = await waitUntil(async () => STOP_LINE.exec(plainLines(spawned.output()).join('\n'))?.[1], {
      timeoutMs: readyTimeoutMs,
      description: `${name}'s ready banner`,
    }).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}\n${spawned.output()}`);
    });
    await new Promise((resolve) => setTimeout(resolve, AFTER_BANNER_MS));
    const lines = plainLines(spawned.output());
    process.kill(Number(pid), 'SIGTERM');
    await Promise.race([spawned.exited, new Promise((resolve) => setTimeout(resolve, 20_000))]);
    const start = lines.findIndex((line) => / is ready/.test(line) && line.startsWith('MCP platform'));
    const end = lines.findIndex((line) => STOP_LINE.test(line));
    return {
      before: lines.slice(0, start).filter((line) => line.trim() !== ''),
      banner: lines.slice(start, end + 1),
      after: lines.slice(end + 1).filter((line) => line.trim() !== ''),
    };
  } finally {
    await tracker.stop(spawned, 20_000);
  }
}

afterAll(async () => {
  await tracker.stopAll();
});

describe('what a start prints', () => {
  describe('the embedded platform (npm start)', () => {
    it('on a terminal: a handful of readable lines, then the ready banner, last', async () => {
      const port = await getFreePort();
      const output = await startAndRead('standalone (terminal)', 'node apps/standalone/dist/main.js', { PORT: String(port), DATA_DIR: 'memory://' }, true);
      expect(output.before.length, output.before.join('\n')).toBeLessThanOrEqual(EMBEDDED_LINES_BEFORE_BANNER);
      expect(
        output.before.filter((line) => line.startsWith('{')),
        'JSON on a terminal',
      ).toEqual([]);
      expect(output.before.at(-1)).toMatch(
        new RegExp(
          `INFO \\(standalone\\): ready on http://127\\.0\\.0\\.1:${port} \\(authorization-server, resource-store, task-scheduler, tool-executor, session-broker\\)`,
        ),
      );
      expect(output.banner.join('\n')).toContain(`http://127.0.0.1:${port}/demo/default/mcp`);
      expect(output.after, 'printed after the banner').toEqual([]);
    });

    it('into a pipe: JSON records, then the ready banner, last', async () => {
      const port = await getFreePort();
      const output = await startAndRead('standalone (pipe)', 'node apps/standalone/dist/main.js', { PORT: String(port), DATA_DIR: 'memory://' }, false);
      expect(output.before.length, output.before.join('\n')).toBeLessThanOrEqual(EMBEDDED_LINES_BEFORE_BANNER);
      for (const line of output.before) expect(JSON.parse(line), line).toMatchObject({ level: 30, name: 'standalone', msg: expect.any(String) });
      expect(output.after, 'printed after the banner').toEqual([]);
    });

    it('in JSON on a terminal when asked (LOG_FORMAT=json)', async () => {
      const output = await startAndRead(
        'standalone (json)',
        'node apps/standalone/dist/main.js',
        { PORT: String(await getFreePort()), DATA_DIR: 'memory://', LOG_FORMAT: 'json' },
        true,
      );
      expect(output.before.length).toBeGreaterThan(0);
      for (const line of output.before) expect(JSON.parse(line), line).toMatchObject({ name: 'standalone' });
    });
  });

  describe('the distributed platform (npm run start:cluster)', () => {
    const prefix = `e2e_out_${uniqueRunId()}`;
    let database: ThrowawayDatabase | undefined;

    afterAll(async () => {
      await database?.drop();
      await deleteBucketsWithPrefix(infrastructure.natsUrl, prefix);
    });

    it("on a terminal: the apps' records as readable lines, a ready line per app, then the ready banner, last", async () => {
      database = await createThrowawayDatabase(infrastructure.databaseUrl, 'mcp_e2e_out');
      const env = {
        DATABASE_URL: database.url,
        NATS_URL: infrastructure.natsUrl,
        NATS_SUBJECT_PREFIX: prefix,
        NATS_BUCKET_PREFIX: prefix,
        CLUSTER_PORTS: 'free',
        DATA_DIR: 'memory://',
      };
      const output = await startAndRead('start:cluster (terminal)', 'node tools/dev-cluster.mjs', env, true, 120_000);
      const records = output.before.slice(1);
      expect(
        records.filter((line) => line.startsWith('{')),
        'JSON on a terminal',
      ).toEqual([]);
      for (const app of ['authorization-server', 'session-broker', 'tool-executor', 'resource-store', 'task-scheduler']) {
        expect(
          records.filter((line) => new RegExp(`INFO \\(${app}\\): ready on http://127\\.0\\.0\\.1:\\d+$`).test(line)),
          app,
        ).toHaveLength(1);
      }
      // A fresh database: each app says which migrations it applied, the keys and the catalog one line.
      expect(records.length, records.join('\n')).toBeLessThanOrEqual(15);
      expect(output.banner[0]).toMatch(/^MCP platform \(distributed: 5 processes\) is ready\.$/);
      expect(output.after, 'printed after the banner').toEqual([]);
    });
  });
});
