import { createMcpHandler } from '@modelcontextprotocol/server';
import { serveWithFetch } from './fetch-bridge';
import { modernCatalogFactory } from './modern-catalog';
import { CatalogState, type SlowRun } from './upstream-catalog';
import { headerValue, listenOnLoopback, methodsOf, parseJsonBody, readBody, type UpstreamRequest } from './upstream-http';

/** Options of `startModernUpstream`. */
export interface ModernUpstreamOptions {
  /** Listen on this port (default: a free one); reuse a closed fixture's port to play an upstream that restarted. */
  port?: number;
  /**
   * 2025-era traffic: `'reject'` (default) answers it with the unsupported-version error, a strictly
   * modern upstream; `'stateless'` serves it as the SDK's stateless fallback does (no sessions, so no
   * server-to-client requests: `ask`, `sample` and `roots` answer a tool error there).
   */
  legacy?: 'reject' | 'stateless';
}

/** A running 2026-07-28-era upstream MCP server (SDK 2.x, stateless) on 127.0.0.1. */
export interface ModernUpstream {
  /** The Streamable HTTP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** Every JSON-RPC request and notification received so far, in order (no session ids: the era has none). */
  readonly requests: readonly UpstreamRequest[];
  /** How each call of `slow` ended, in order: shows whether a cancel reached the upstream. */
  readonly slowRuns: readonly SlowRun[];
  /** Changes a tool's description; open `subscriptions/listen` streams get `notifications/tools/list_changed`. */
  setToolDescription(name: string, text: string): void;
  /** Adds a tool answering `<name> called`; open listen streams get `notifications/tools/list_changed`. */
  addTool(name: string): void;
  /** Sends `notifications/resources/updated` for `uri` on the listen streams that subscribed to it. */
  touch(uri: string): void;
  /** The `resourceSubscriptions` of every `subscriptions/listen` stream open now (one naming none is left out). */
  resourceListens(): string[][];
  /** Ends in-flight exchanges and listen streams, and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts an upstream MCP server of the 2026-07-28 era on `@modelcontextprotocol/server` 2.x with the
 * shared catalog: `createMcpHandler` over a per-request factory (stateless; it answers
 * `server/discover`), mounted on `node:http` at `/mcp`. Change notifications travel on
 * `subscriptions/listen` streams, the era's replacement for the GET stream and `resources/subscribe`.
 * There is no `dropSessions`: the era has no sessions.
 */
export async function startModernUpstream(options: ModernUpstreamOptions = {}): Promise<ModernUpstream> {
  const state = new CatalogState();
  const requests: UpstreamRequest[] = [];
  const listens = new Set<string[]>();
  const handler = createMcpHandler(modernCatalogFactory(state), { legacy: options.legacy ?? 'reject' });
  const http = await listenOnLoopback(async (request, response) => {
    if (new URL(request.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const body = request.method === 'POST' ? await readBody(request) : undefined;
    if (body !== undefined) {
      const protocolVersion = headerValue(request, 'mcp-protocol-version');
      let parsed: unknown;
      try {
        parsed = parseJsonBody(body);
      } catch {
        // The SDK answers the broken body itself; there is no method to record.
      }
      for (const method of methodsOf(parsed))
        requests.push({ method, transport: 'streamable-http', ...(protocolVersion !== undefined && { protocolVersion }) });
      const uris = listenedUris(parsed);
      if (uris) {
        listens.add(uris);
        response.on('close', () => listens.delete(uris));
      }
    }
    await serveWithFetch(handler.fetch, request, response, body);
  }, options.port);

  return {
    url: `${http.origin}/mcp`,
    get requests() {
      return [...requests];
    },
    get slowRuns() {
      return state.slowRuns();
    },
    setToolDescription(name, text) {
      state.setDescription(name, text);
      handler.notify.toolsChanged();
    },
    addTool(name) {
      state.addTool(name);
      handler.notify.toolsChanged();
    },
    touch(uri) {
      handler.notify.resourceUpdated(uri);
    },
    resourceListens: () => [...listens].map((uris) => [...uris]),
    async close() {
      await handler.close();
      await http.close();
    },
  };
}

/** The resource URIs a `subscriptions/listen` request subscribes to, when it is one naming some. */
function listenedUris(body: unknown): string[] | undefined {
  if (typeof body !== 'object' || body === null || (body as { method?: unknown }).method !== 'subscriptions/listen') return undefined;
  const uris = (body as { params?: { notifications?: { resourceSubscriptions?: unknown } } }).params?.notifications?.resourceSubscriptions;
  return Array.isArray(uris) && uris.length > 0 ? uris.filter((uri): uri is string => typeof uri === 'string') : undefined;
}
