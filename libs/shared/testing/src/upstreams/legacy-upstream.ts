import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { LegacyCatalogServer } from './legacy-catalog';
import { CatalogState, type SlowRun } from './upstream-catalog';
import {
  FIXTURE_ERROR_CODES,
  headerValue,
  listenOnLoopback,
  methodsOf,
  parseJsonBody,
  readBody,
  sendJsonRpcError,
  type UpstreamRequest,
  type UpstreamTransportKind,
} from './upstream-http';

/** Options of `startLegacyUpstream`. */
export interface LegacyUpstreamOptions {
  /** Listen on this port (default: a free one); reuse a closed fixture's port to play an upstream that restarted. */
  port?: number;
}

/** A running 2025-era upstream MCP server (SDK 1.x) on 127.0.0.1. */
export interface LegacyUpstream {
  /** The Streamable HTTP endpoint, `http://127.0.0.1:<port>/mcp` (stateful: `Mcp-Session-Id`). */
  readonly url: string;
  /** The deprecated HTTP+SSE endpoint, `http://127.0.0.1:<port>/sse` (it names `/messages?sessionId=…`). */
  readonly sseUrl: string;
  /** Every JSON-RPC request and notification received so far, in order. */
  readonly requests: readonly UpstreamRequest[];
  /** Ids of the sessions open now (both transports). */
  sessionIds(): string[];
  /** Forgets every session (and ends its streams): the next request with an old id gets HTTP 404. */
  dropSessions(): Promise<void>;
  /** How each call of `slow` ended, in order: shows whether a cancel reached the upstream. */
  readonly slowRuns: readonly SlowRun[];
  /** Changes a tool's description; connected sessions get `notifications/tools/list_changed`. */
  setToolDescription(name: string, text: string): void;
  /** Adds a tool answering `<name> called`; connected sessions get `notifications/tools/list_changed`. */
  addTool(name: string): void;
  /**
   * Sends `notifications/resources/updated` for `uri` to the sessions subscribed to it; resolves with their
   * number. `unasked`: to every connected session, subscribed or not (a hostile upstream).
   */
  touch(uri: string, options?: { unasked?: boolean }): Promise<number>;
  /** The URIs some session subscribed to now (`resources/subscribe`, not yet unsubscribed), each once, sorted. */
  subscribedUris(): string[];
  /** Ends every session and stops listening. */
  close(): Promise<void>;
}

interface LegacySession {
  readonly kind: UpstreamTransportKind;
  readonly catalog: LegacyCatalogServer;
  readonly transport: StreamableHTTPServerTransport | SSEServerTransport;
}

/**
 * Starts an upstream MCP server of the 2025 era on `@modelcontextprotocol/sdk` 1.x with the shared
 * catalog (`upstream-catalog.ts`): Streamable HTTP at `/mcp`, one `McpServer` and transport per session
 * (the SDK's stateful pattern), and the deprecated HTTP+SSE transport at `/sse` + `/messages`.
 * Unknown session ids get 404 (spec: a client then starts a new session), a non-initialize request
 * without one gets 400.
 */
export async function startLegacyUpstream(options: LegacyUpstreamOptions = {}): Promise<LegacyUpstream> {
  const state = new CatalogState();
  const sessions = new Map<string, LegacySession>();
  const requests: UpstreamRequest[] = [];
  const record = (kind: UpstreamTransportKind, request: IncomingMessage, body: unknown, sessionId: string | undefined): void => {
    const protocolVersion = headerValue(request, 'mcp-protocol-version');
    const authorization = headerValue(request, 'authorization');
    for (const method of methodsOf(body)) {
      requests.push({
        method,
        transport: kind,
        ...(sessionId !== undefined && { sessionId }),
        ...(protocolVersion !== undefined && { protocolVersion }),
        ...(authorization !== undefined && { authorization }),
      });
    }
  };
  const routes = { state, sessions, record };
  const http = await listenOnLoopback(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (path === '/mcp') return serveStreamableHttp(routes, request, response);
    if (path === '/sse' && request.method === 'GET') return openSseSession(routes, response);
    if (path === '/messages' && request.method === 'POST') return serveSseMessage(routes, request, response);
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }, options.port);

  const dropSessions = async (): Promise<void> => {
    const dropped = [...sessions.values()];
    sessions.clear();
    // Closing the server closes its transport, which ends the session's open streams.
    await Promise.allSettled(dropped.map(({ catalog }) => catalog.server.close()));
  };
  return {
    url: `${http.origin}/mcp`,
    sseUrl: `${http.origin}/sse`,
    get requests() {
      return [...requests];
    },
    get slowRuns() {
      return state.slowRuns();
    },
    sessionIds: () => [...sessions.keys()],
    dropSessions,
    setToolDescription(name, text) {
      state.setDescription(name, text);
      for (const { catalog } of sessions.values()) catalog.refreshDescription(name);
    },
    addTool(name) {
      state.addTool(name);
      for (const { catalog } of sessions.values()) catalog.addTool(name);
    },
    subscribedUris: () => [...new Set([...sessions.values()].flatMap(({ catalog }) => catalog.subscribed()))].sort(),
    async touch(uri, options = {}) {
      const sent = await Promise.all([...sessions.values()].map(({ catalog }) => catalog.touch(uri, options.unasked)));
      return sent.filter(Boolean).length;
    },
    async close() {
      await dropSessions();
      await http.close();
    },
  };
}

interface Routes {
  readonly state: CatalogState;
  readonly sessions: Map<string, LegacySession>;
  record(kind: UpstreamTransportKind, request: IncomingMessage, body: unknown, sessionId: string | undefined): void;
}

async function serveStreamableHttp(routes: Routes, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const sessionId = headerValue(request, 'mcp-session-id');
  const body = request.method === 'POST' ? parseJsonBody(await readBody(request)) : undefined;
  if (body !== undefined) routes.record('streamable-http', request, body, sessionId);
  if (sessionId !== undefined) {
    const session = routes.sessions.get(sessionId);
    // spec (2025-06-18, Session Management): a request with an ended session's id gets 404.
    if (session?.transport instanceof StreamableHTTPServerTransport) return session.transport.handleRequest(request, response, body);
    return sendJsonRpcError(response, 404, FIXTURE_ERROR_CODES.sessionNotFound, 'Session not found');
  }
  if (request.method !== 'POST' || !isInitializeRequest(body)) {
    return sendJsonRpcError(response, 400, FIXTURE_ERROR_CODES.invalidRequest, 'Bad Request: no valid session id');
  }
  const catalog = new LegacyCatalogServer(routes.state);
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => void routes.sessions.set(id, { kind: 'streamable-http', catalog, transport }),
  });
  transport.onclose = () => {
    if (transport.sessionId !== undefined && routes.sessions.get(transport.sessionId)?.transport === transport) routes.sessions.delete(transport.sessionId);
  };
  await catalog.server.connect(transport);
  await transport.handleRequest(request, response, body);
}

async function openSseSession(routes: Routes, response: ServerResponse): Promise<void> {
  const catalog = new LegacyCatalogServer(routes.state);
  const transport = new SSEServerTransport('/messages', response);
  const sessionId = transport.sessionId;
  routes.sessions.set(sessionId, { kind: 'sse', catalog, transport });
  transport.onclose = () => {
    if (routes.sessions.get(sessionId)?.transport === transport) routes.sessions.delete(sessionId);
  };
  // `connect` starts the transport, which writes the `endpoint` event.
  await catalog.server.connect(transport);
}

async function serveSseMessage(routes: Routes, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const sessionId = new URL(request.url ?? '/', 'http://127.0.0.1').searchParams.get('sessionId') ?? undefined;
  const body = parseJsonBody(await readBody(request));
  routes.record('sse', request, body, sessionId);
  const session = sessionId === undefined ? undefined : routes.sessions.get(sessionId);
  if (!(session?.transport instanceof SSEServerTransport)) return sendJsonRpcError(response, 404, FIXTURE_ERROR_CODES.sessionNotFound, 'Session not found');
  await session.transport.handlePostMessage(request, response, body);
}
