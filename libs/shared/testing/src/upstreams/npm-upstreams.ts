import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { getFreePort } from '../network/free-port';
import { waitUntil } from '../network/wait-until';
import { ProcessTracker, type TrackedProcess } from '../processes/process-tracker';
import type { StdioServerCommand } from './stdio-upstream-command';

/** The reference servers from npm (devDependencies), each run by this Node binary. */
export const NPM_UPSTREAM_PACKAGES = {
  everything: '@modelcontextprotocol/server-everything',
  filesystem: '@modelcontextprotocol/server-filesystem',
  memory: '@modelcontextprotocol/server-memory',
} as const;

/** The file a package's bin names (the packages have one bin each), resolved in node_modules. */
export function npmUpstreamBin(packageName: string): string {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin?: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  if (bin === undefined) throw new Error(`${packageName} declares no bin`);
  return join(dirname(manifestPath), bin);
}

/** `@modelcontextprotocol/server-everything` over stdio (its default transport): tools, resources, prompts, sampling, elicitation. */
export function everythingServerCommand(): StdioServerCommand {
  return { command: process.execPath, args: [npmUpstreamBin(NPM_UPSTREAM_PACKAGES.everything), 'stdio'] };
}

/** `@modelcontextprotocol/server-filesystem` over stdio, allowed to read and write only `directories` (at least one). */
export function filesystemServerCommand(directories: readonly string[]): StdioServerCommand {
  if (directories.length === 0) throw new Error('the filesystem server needs at least one allowed directory');
  return { command: process.execPath, args: [npmUpstreamBin(NPM_UPSTREAM_PACKAGES.filesystem), ...directories] };
}

/**
 * `@modelcontextprotocol/server-memory` over stdio, keeping its knowledge graph in `memoryFile` (its
 * default is a file inside its own package folder in node_modules, which a test must not write).
 */
export function memoryServerCommand(memoryFile: string): StdioServerCommand {
  return { command: process.execPath, args: [npmUpstreamBin(NPM_UPSTREAM_PACKAGES.memory)], env: { MEMORY_FILE_PATH: memoryFile } };
}

/** The HTTP transports server-everything has besides stdio. */
export type EverythingHttpTransport = 'streamable-http' | 'sse';

/** A server-everything process serving HTTP on 127.0.0.1. */
export interface EverythingHttp {
  /** `http://127.0.0.1:<port>/mcp` (Streamable HTTP, stateful) or `…/sse` (HTTP+SSE). */
  readonly url: string;
  readonly pid: number;
  /** What it printed so far, for failure messages. */
  output(): string;
  /** Stops the process by its pid (SIGTERM, then SIGKILL). */
  close(): Promise<void>;
}

/**
 * server-everything binds `app.listen(PORT)`, i.e. every interface, and reads no host setting; this
 * preload (a data: URL module, so no file is needed) pins a listen without a host to 127.0.0.1.
 */
const LOOPBACK_PRELOAD = `data:text/javascript,${encodeURIComponent(
  [
    "import net from 'node:net';",
    'const listen = net.Server.prototype.listen;',
    'net.Server.prototype.listen = function (...args) {',
    "  const port = typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\\d+$/.test(args[0]));",
    "  if (port && typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');",
    '  return listen.apply(this, args);',
    '};',
  ].join('\n'),
)}`;

/**
 * Starts `@modelcontextprotocol/server-everything` in its Streamable HTTP mode (`streamableHttp`, the
 * default here) or its HTTP+SSE mode (`sse`) on a free loopback port, and waits until it answers HTTP
 * (bounded). The process is tracked by pid, so it is killed even if the test runner exits first.
 */
export async function startEverythingHttp(options: { transport?: EverythingHttpTransport; timeoutMs?: number } = {}): Promise<EverythingHttp> {
  const transport = options.transport ?? 'streamable-http';
  const port = await getFreePort();
  const tracker = new ProcessTracker();
  const mode = transport === 'sse' ? 'sse' : 'streamableHttp';
  const child: TrackedProcess = tracker.start(
    'server-everything',
    process.execPath,
    ['--import', LOOPBACK_PRELOAD, npmUpstreamBin(NPM_UPSTREAM_PACKAGES.everything), mode],
    { env: { ...process.env, PORT: String(port) } },
  );
  const origin = `http://127.0.0.1:${port}`;
  const url = `${origin}${transport === 'sse' ? '/sse' : '/mcp'}`;
  const exited = child.exited.then((code) => {
    throw new Error(`server-everything exited (${String(code)}) before it answered: ${child.output()}`);
  });
  const listening = waitUntil(
    async () => {
      // Any HTTP answer will do (a request without a session is refused): the server is listening.
      const response = await fetch(`${origin}/mcp`, { method: 'DELETE', signal: AbortSignal.timeout(1_000) });
      await response.arrayBuffer();
      return true;
    },
    { timeoutMs: options.timeoutMs ?? 15_000, intervalMs: 100, description: `server-everything on ${origin}` },
  );
  try {
    await Promise.race([listening, exited]);
  } catch (error) {
    await tracker.stopAll(1_000);
    throw error;
  } finally {
    // Neither loser may surface as an unhandled rejection later.
    void exited.catch(() => undefined);
    void listening.catch(() => undefined);
  }
  return { url, pid: child.pid, output: () => child.output(), close: () => tracker.stopAll(2_000) };
}
