import { z } from 'zod';

/** HTTP header names of the Streamable HTTP transport, lowercase (header names compare case-insensitively, S-119). */
export const McpHttpHeader = {
  /** The revision of this request; modern: must equal `_meta` protocolVersion (S-109); legacy: after init (S-95). */
  ProtocolVersion: 'mcp-protocol-version',
  /** Legacy session id (S-91); never minted or echoed on the modern path (S-121). */
  SessionId: 'mcp-session-id',
  /** Modern: mirrors the JSON-RPC `method` (S-112). */
  Method: 'mcp-method',
  /** Modern: mirrors `params.name` / `params.uri` for the methods that name a target (S-113). */
  Name: 'mcp-name',
  /** Legacy resumption cursor; ignored on the modern path (S-107). */
  LastEventId: 'last-event-id',
  /** Modern, SHOULD on SSE responses (S-105). */
  AccelBuffering: 'x-accel-buffering',
} as const;

/** Methods whose `Mcp-Name` header is required, and the params member it mirrors (S-113; the tasks extension's methods: S-305). */
export const MCP_NAME_SOURCES: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** The value of `Mcp-Name` a request must carry, or `undefined` when its method needs none. */
export function expectedMcpName(method: string, params: Record<string, unknown> | undefined): { required: boolean; value: unknown } {
  const source = Object.hasOwn(MCP_NAME_SOURCES, method) ? MCP_NAME_SOURCES[method] : undefined;
  if (!source) return { required: false, value: undefined };
  return { required: true, value: params?.[source] };
}

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
// Visible ASCII, space and horizontal tab: what RFC 9110 allows in a field value.
const HEADER_SAFE = /^[\x20-\x7e\t]*$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf8Encoder = new TextEncoder();

/** The outcome of decoding a mirrored header value (S-114). */
export const DecodedHeaderValueSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), value: z.string() }),
  z.object({ ok: z.literal(false), reason: z.string() }),
]);
export type DecodedHeaderValue = z.infer<typeof DecodedHeaderValueSchema>;

/**
 * Decodes a header value that may use the Base64 sentinel `=?base64?<b64 of UTF-8>?=` (S-114):
 * markers are lowercase and case-sensitive; the payload must be canonical Base64 of valid UTF-8.
 * Plain values must be header-safe characters.
 */
export function decodeMcpHeaderValue(raw: string): DecodedHeaderValue {
  if (!HEADER_SAFE.test(raw)) return { ok: false, reason: 'the header value contains invalid characters' };
  if (!(raw.startsWith(SENTINEL_PREFIX) && raw.endsWith(SENTINEL_SUFFIX) && raw.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length)) {
    return { ok: true, value: raw };
  }
  const payload = raw.slice(SENTINEL_PREFIX.length, raw.length - SENTINEL_SUFFIX.length);
  if (payload.length % 4 !== 0 || !BASE64.test(payload)) return { ok: false, reason: 'the Base64 sentinel value is not valid Base64' };
  const binary = atob(payload);
  // Canonical only: padding bits that are not zero (`SGVsbG9=`) would let two payloads mean one value.
  if (btoa(binary) !== payload) return { ok: false, reason: 'the Base64 sentinel value is not canonical Base64' };
  try {
    return { ok: true, value: utf8.decode(Uint8Array.from(binary, (char) => char.charCodeAt(0))) };
  } catch {
    return { ok: false, reason: 'the Base64 sentinel value is not valid UTF-8' };
  }
}

/**
 * Encodes a value for `Mcp-Name` / `Mcp-Param-*` as a client must (S-114): plain when it is
 * header-safe without leading/trailing whitespace and does not look like the sentinel, Base64 otherwise.
 */
export function encodeMcpHeaderValue(value: string): string {
  const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX));
  if (plain || value === '') return value;
  let binary = '';
  for (const byte of utf8Encoder.encode(value)) binary += String.fromCharCode(byte);
  return `${SENTINEL_PREFIX}${btoa(binary)}${SENTINEL_SUFFIX}`;
}
