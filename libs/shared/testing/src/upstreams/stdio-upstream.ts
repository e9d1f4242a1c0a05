/**
 * A runnable stdio upstream (SDK 1.x, 2025 era) with the shared catalog: `node
 * libs/shared/testing/dist/upstreams/stdio-upstream.js` once the lib is built (swc emits CommonJS, and
 * the lib's package.json has no `"type"`, so plain `node` runs it). Its command line comes from
 * `legacyStdioUpstreamCommand()`. It writes `fixture stdio upstream ready` to stderr once it reads
 * stdin, and exits when stdin closes. `FIXTURE_ECHO_DESCRIPTION` in its environment replaces `echo`'s description (the client went away). Run it; never import it: importing starts it.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { LegacyCatalogServer } from './legacy-catalog';
import { STDIO_UPSTREAM_READY_LINE } from './stdio-upstream-command';
import { CatalogState } from './upstream-catalog';

async function main(): Promise<void> {
  const state = new CatalogState();
  // What a stdio source's parameters reach: its environment (an operator's entry may set it from a tenant's value).
  const echoDescription = process.env['FIXTURE_ECHO_DESCRIPTION'];
  if (echoDescription) state.setDescription('echo', echoDescription);
  const catalog = new LegacyCatalogServer(state);
  const transport = new StdioServerTransport();
  await catalog.server.connect(transport);
  let ending = false;
  const end = (): void => {
    if (ending) return;
    ending = true;
    // Whatever is still running (a `slow` call) ends with the process; stdout is flushed first.
    void catalog.server.close().finally(() => process.stdout.write('', () => process.exit(0)));
  };
  process.stdin.once('end', end);
  process.stdin.once('close', end);
  process.stderr.write(`${STDIO_UPSTREAM_READY_LINE}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`fixture stdio upstream failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
