import { request as httpRequest } from 'node:http';

export const MODERN = '2026-07-28';
export const ACCEPT_BOTH = 'application/json, text/event-stream';

export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The JSON body, or the JSON-RPC messages of an SSE body. */
  messages: unknown[];
}

/** Parses a JSON or SSE answer into its JSON-RPC messages. */
export function messagesOf(contentType: string | null, text: string): unknown[] {
  if (!text) return [];
  if (contentType?.startsWith('text/event-stream')) {
    return text
      .split('\n\n')
      .map((event) =>
        event
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trim())
          .join('\n'),
      )
      .filter(Boolean)
      .map((data) => JSON.parse(data) as unknown);
  }
  try {
    return [JSON.parse(text) as unknown];
  } catch {
    return [];
  }
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, messages: messagesOf(response.headers.get('content-type'), text) };
}

/** The modern envelope for a request's params. */
export function modernParams(params: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...params,
    _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, ...meta },
  };
}

/** The headers a modern request must carry. */
export function modernHeaders(method: string, name?: string): Record<string, string> {
  return { 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(name === undefined ? {} : { 'mcp-name': name }) };
}

/** A raw request with a Host header of our choosing (fetch does not let us set one). */
export function rawHttp(url: string, options: { method: string; headers: Record<string, string>; body?: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const request = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname, method: options.method, headers: options.headers },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** Initializes a legacy session with raw HTTP and returns its id. */
export async function initializeRaw(url: string, protocolVersion = '2025-11-25'): Promise<string> {
  const answer = await post(url, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  const sessionId = answer.headers.get('mcp-session-id');
  if (answer.status !== 200 || !sessionId) throw new Error(`initialize failed: ${answer.status} ${answer.text}`);
  await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sessionId, 'mcp-protocol-version': protocolVersion });
  return sessionId;
}

export async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** An SSE response read as it arrives: the JSON-RPC messages so far, and whether it ended. */
export interface OpenStream {
  status: number;
  headers: Headers;
  /** The complete events received so far, as JSON-RPC messages. */
  messages(): Array<{ id?: unknown; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: unknown }>;
  /** The raw text so far (keep-alive comments included). */
  text(): string;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** Closes it from the client side. */
  close(): Promise<void>;
}

/** Sends a request whose answer is a long-lived SSE stream (a GET stream, `subscriptions/listen`) and reads it in the background. */
export async function openStream(url: string, init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: unknown }): Promise<OpenStream> {
  const response = await fetch(url, {
    method: init.method,
    headers:
      init.method === 'POST' ? { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...init.headers } : { accept: 'text/event-stream', ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  const ended = (async () => {
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) return;
      text += decoder.decode(chunk.value, { stream: true });
    }
  })();
  return {
    status: response.status,
    headers: response.headers,
    messages: () => messagesOf('text/event-stream', text.slice(0, text.lastIndexOf('\n\n') + 2)) as ReturnType<OpenStream['messages']>,
    text: () => text,
    ended,
    close: () => reader.cancel().catch(() => undefined),
  };
}
