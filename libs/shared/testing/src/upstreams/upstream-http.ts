import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How a fixture was reached by one JSON-RPC message. */
export type UpstreamTransportKind = 'streamable-http' | 'sse';

/** One JSON-RPC request or notification a fixture received, for assertions. */
export interface UpstreamRequest {
  readonly method: string;
  readonly transport: UpstreamTransportKind;
  /** `Mcp-Session-Id` (Streamable HTTP) or `sessionId` (HTTP+SSE), when the message carried one. */
  readonly sessionId?: string;
  /** The `MCP-Protocol-Version` header, when present. */
  readonly protocolVersion?: string;
  /** The `Authorization` header, when present (a test checks what credentials reached the upstream). */
  readonly authorization?: string;
}

/** Bodies above this are refused with 413 before parsing (the SDKs' own default is 4 MiB too). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A request body that could not be read: too large, or not JSON. */
export class BodyError extends Error {
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
  }
}

/** Reads a request body, bounded by `MAX_BODY_BYTES`. */
export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyError(413, 'request body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Parses a JSON body; a parse failure is a 400. */
export function parseJsonBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new BodyError(400, 'body is not JSON');
  }
}

/** The methods of the JSON-RPC requests and notifications in a body (a message or a batch); responses have none. */
export function methodsOf(message: unknown): string[] {
  const messages = Array.isArray(message) ? (message as unknown[]) : [message];
  return messages.flatMap((entry) => {
    const method = typeof entry === 'object' && entry !== null ? (entry as { method?: unknown }).method : undefined;
    return typeof method === 'string' ? [method] : [];
  });
}

/** A single header's value. */
export function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Answers a JSON-RPC error with `status` and no id (the message could not be attributed). */
export function sendJsonRpcError(response: ServerResponse, status: number, code: number, message: string): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** JSON-RPC codes the fixtures answer themselves, before a request reaches an SDK. */
export const FIXTURE_ERROR_CODES = { parseError: -32700, invalidRequest: -32600, sessionNotFound: -32001, internalError: -32603 } as const;

/** An HTTP server of a fixture, on 127.0.0.1. */
export interface LoopbackServer {
  readonly server: Server;
  readonly origin: string;
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 (port 0, i.e. a free port the OS picks, unless one is given: a fixture restarted
 * on its old port plays an upstream that came back). Handler errors become a 500 JSON-RPC error.
 */
export async function listenOnLoopback(handler: (request: IncomingMessage, response: ServerResponse) => Promise<void>, port = 0): Promise<LoopbackServer> {
  const listener: RequestListener = (request, response) => {
    handler(request, response).catch((error: unknown) => {
      if (error instanceof BodyError) {
        sendJsonRpcError(response, error.status, error.status === 413 ? FIXTURE_ERROR_CODES.invalidRequest : FIXTURE_ERROR_CODES.parseError, error.message);
        return;
      }
      sendJsonRpcError(response, 500, FIXTURE_ERROR_CODES.internalError, error instanceof Error ? error.message : String(error));
    });
  };
  const server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000 }, listener);
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closing: Promise<void> | undefined;
  return {
    server,
    origin,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
