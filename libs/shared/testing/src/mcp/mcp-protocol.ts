import type { Agent } from 'node:http';
import { type RawResponse, sendRaw } from './raw-http';

/** The modern protocol revision (stateless, `_meta` on every request). */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';
/** Legacy revisions the platform negotiates, newest first. */
export const LEGACY_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;

/** Reserved `_meta` keys of the modern era. */
export const META_KEYS = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
} as const;

/** JSON-RPC and MCP error codes the tests check (spec §4.1). */
export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

/** The MCP URL of a virtual server: `<base>/<tenant>/<server>/mcp`. */
export function mcpUrl(baseUrl: string, tenant: string, server: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${tenant}/${server}/mcp`;
}

/** Headers every well-formed POST carries. */
export const POST_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/** The `_meta` envelope of a modern request. */
export function modernMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    [META_KEYS.protocolVersion]: MODERN_PROTOCOL_VERSION,
    [META_KEYS.clientCapabilities]: {},
    [META_KEYS.clientInfo]: { name: 'e2e-raw', version: '1.0.0' },
    ...extra,
  };
}

/** Headers of a modern request: version, `Mcp-Method` and, for named methods, `Mcp-Name` (S-112, S-113). */
export function modernHeaders(method: string, name?: string): Record<string, string> {
  return {
    ...POST_HEADERS,
    'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
  };
}

/** A legacy session opened with raw HTTP (initialize + initialized). */
export interface LegacySession {
  sessionId: string;
  protocolVersion: string;
  /** Headers for later requests of the session. */
  headers: Record<string, string>;
}

/**
 * Opens a legacy session: `initialize`, then `notifications/initialized` (expects 202). `extraHeaders`
 * (e.g. `authorization` for a protected server) go on both requests and into the session's headers.
 */
export async function openLegacySession(
  url: string,
  agent?: Agent,
  protocolVersion: string = LEGACY_PROTOCOL_VERSIONS[0],
  extraHeaders: Readonly<Record<string, string>> = {},
): Promise<LegacySession> {
  const initialized = await sendRaw(
    {
      url,
      headers: { ...POST_HEADERS, ...extraHeaders },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion, capabilities: {}, clientInfo: { name: 'e2e-raw', version: '1.0.0' } },
      }),
    },
    agent,
  );
  const sessionId = initialized.headers['mcp-session-id'];
  if (initialized.status !== 200 || typeof sessionId !== 'string') {
    throw new Error(`initialize answered ${initialized.status} without a session id: ${initialized.body.slice(0, 300)}`);
  }
  const result = firstResult(initialized) as { protocolVersion?: unknown } | undefined;
  const negotiated = typeof result?.protocolVersion === 'string' ? result.protocolVersion : protocolVersion;
  const headers = { ...POST_HEADERS, ...extraHeaders, 'mcp-session-id': sessionId, 'mcp-protocol-version': negotiated };
  const notified = await sendRaw({ url, headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) }, agent);
  if (notified.status !== 202) throw new Error(`notifications/initialized answered ${notified.status}`);
  return { sessionId, protocolVersion: negotiated, headers };
}

/** Ends a legacy session with DELETE; returns the status. */
export async function deleteLegacySession(url: string, session: LegacySession, agent?: Agent): Promise<number> {
  const answer = await sendRaw(
    { url, method: 'DELETE', headers: { 'mcp-session-id': session.sessionId, 'mcp-protocol-version': session.protocolVersion } },
    agent,
  );
  return answer.status;
}

/** A JSON-RPC response message, loosely typed for assertions. */
export interface JsonRpcAnswer {
  jsonrpc?: unknown;
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

/** The JSON-RPC response (result or error) in an answer, skipping notifications before it. */
export function responseMessage(answer: RawResponse): JsonRpcAnswer | undefined {
  return answer.messages?.find(
    (message): message is JsonRpcAnswer => typeof message === 'object' && message !== null && ('result' in message || 'error' in message),
  );
}

/** The `result` of the answer's response, if it has one. */
export function firstResult(answer: RawResponse): unknown {
  return responseMessage(answer)?.result;
}

/** The `error.code` of the answer's response, if it has one. */
export function errorCode(answer: RawResponse): number | undefined {
  const code = responseMessage(answer)?.error?.code;
  return typeof code === 'number' ? code : undefined;
}

/** The text of a `tools/call` result's `text` content blocks, joined by newlines (`''` when it has none). */
export function toolResultText(result: unknown): string {
  const content = (result as { content?: unknown } | null | undefined)?.content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (block): block is { type: 'text'; text: string } =>
        typeof block === 'object' && block !== null && block.type === 'text' && typeof block.text === 'string',
    )
    .map((block) => block.text)
    .join('\n');
}
