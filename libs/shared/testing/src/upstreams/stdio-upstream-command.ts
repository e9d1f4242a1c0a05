import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The line the stdio upstream writes to stderr once it serves. */
export const STDIO_UPSTREAM_READY_LINE = 'fixture stdio upstream ready';

/** A command that starts a stdio MCP server: give it to a stdio client transport (or `spawn`). */
export interface StdioServerCommand {
  command: string;
  args: string[];
  /** Variables the server needs besides the client's defaults. */
  env?: Record<string, string>;
}

/**
 * The built entry of the stdio upstream, `libs/shared/testing/dist/upstreams/stdio-upstream.js`. This
 * module sits two folders below the lib's root both as source (`src/upstreams`) and built
 * (`dist/upstreams`), so the path holds from either.
 */
export function stdioUpstreamEntry(): string {
  return join(dirname(dirname(__dirname)), 'dist', 'upstreams', 'stdio-upstream.js');
}

/**
 * `node <the built stdio upstream>` (this Node binary): the shared catalog on SDK 1.x over stdio.
 * Throws when the lib is not built, rather than handing out a command that fails at spawn time.
 */
export function legacyStdioUpstreamCommand(): StdioServerCommand {
  const entry = stdioUpstreamEntry();
  if (!existsSync(entry)) throw new Error(`${entry} is missing: build the lib first (npm run build)`);
  return { command: process.execPath, args: [entry] };
}
