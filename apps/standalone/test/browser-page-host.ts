import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join, normalize, sep } from 'node:path';
import { findRepoRoot, getFreePort } from '@mcp-platform/shared-testing';

/**
 * The official MCP client (`@modelcontextprotocol/client` 2.x) as a browser loads it without a bundler:
 * its ESM files and their dependencies' browser builds, named by an import map. Only these packages
 * are served, from the workspace's `node_modules`.
 */
const IMPORT_MAP: Readonly<Record<string, string>> = {
  '@modelcontextprotocol/client': '@modelcontextprotocol/client/dist/index.mjs',
  '@modelcontextprotocol/client/_shims': '@modelcontextprotocol/client/dist/shimsBrowser.mjs',
  '@modelcontextprotocol/core/internal': '@modelcontextprotocol/core/dist/internal.mjs',
  'zod/v4': 'zod/v4/index.js',
  'pkce-challenge': 'pkce-challenge/dist/index.browser.js',
  eventsource: 'eventsource/dist/index.js',
  'eventsource-parser': 'eventsource-parser/dist/index.js',
  'eventsource-parser/stream': 'eventsource-parser/dist/stream.js',
  jose: 'jose/dist/webapi/index.js',
};
const SERVED_PACKAGES = ['@modelcontextprotocol/client', '@modelcontextprotocol/core', 'zod', 'pkce-challenge', 'eventsource', 'eventsource-parser', 'jose'];

/** The page: loads the client and says so (`window.mcpReady`), or why not (`window.mcpLoadError`). */
function page(): string {
  const imports = Object.fromEntries(Object.entries(IMPORT_MAP).map(([specifier, path]) => [specifier, `/node_modules/${path}`]));
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>MCP browser client</title>
<script type="importmap">${JSON.stringify({ imports })}</script>
<script type="module">
  try {
    const sdk = await import('@modelcontextprotocol/client');
    window.mcp = { Client: sdk.Client, StreamableHTTPClientTransport: sdk.StreamableHTTPClientTransport };
    window.mcpReady = true;
  } catch (error) {
    window.mcpLoadError = String(error && error.stack || error);
  }
</script></head><body>MCP browser client</body></html>`;
}

/** A web page on an origin of its own (a port of 127.0.0.1), like a browser client's site. */
export interface PageHost {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  close(): Promise<void>;
}

/** Serves the page at `/` and the client's modules under `/node_modules/`, on a free port. */
export async function startPageHost(): Promise<PageHost> {
  const modules = join(findRepoRoot(), 'node_modules');
  const server: Server = createServer((request, response) => {
    void (async () => {
      const path = decodeURIComponent(new URL(request.url ?? '/', 'http://page').pathname);
      if (path === '/') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page());
        return;
      }
      const file = normalize(join(modules, path.replace(/^\/node_modules\//, '')));
      const allowed = path.startsWith('/node_modules/') && SERVED_PACKAGES.some((name) => file.startsWith(join(modules, name) + sep));
      if (!allowed) {
        response.writeHead(404).end();
        return;
      }
      try {
        response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(await readFile(file));
      } catch {
        response.writeHead(404).end();
      }
    })();
  });
  const port = await getFreePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
