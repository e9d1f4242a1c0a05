import { McpHttpHeader } from '@mcp-platform/protocol-mcp';

/**
 * What a browser client may send to the MCP endpoint: the bearer token, the JSON body, the media types it
 * accepts, a legacy session's id, its protocol version and a stream's `Last-Event-ID` (S-90), and the
 * modern era's `Mcp-Method`/`Mcp-Name` (S-112, S-113). `Mcp-Param-*` headers are allowed by name as requested.
 */
const ALLOWED_REQUEST_HEADERS = [
  'authorization',
  'content-type',
  'accept',
  McpHttpHeader.SessionId,
  McpHttpHeader.ProtocolVersion,
  'last-event-id',
  'mcp-method',
  'mcp-name',
];

/** A modern `Mcp-Param-<name>` header (S-116), one HTTP token (S-117). */
const PARAM_HEADER = /^mcp-param-[!#$%&'*+.^_`|~0-9a-z-]+$/;

/**
 * What a browser client must read: the session id it was given (S-91), the challenge of a 401 or 403 to
 * start OAuth or step up (S-139, S-142), the protocol version, and a stream's event id.
 */
const EXPOSED_HEADERS = [McpHttpHeader.SessionId, 'www-authenticate', McpHttpHeader.ProtocolVersion, 'last-event-id'].join(', ');

/** How long a browser may reuse a preflight's answer: an hour (Chromium keeps at most two). */
const PREFLIGHT_MAX_AGE_SECONDS = 3_600;

/**
 * The CORS headers of every answer of the MCP endpoint: for a page of an allowed origin, that origin
 * (never `*`: only the allow-list's origins may read) and the headers it may read; `Vary: Origin`
 * always, since the answer depends on it. No credentials mode: clients send bearer tokens, not cookies.
 */
export function corsHeaders(allowedOrigin: string | undefined): Record<string, string> {
  if (allowedOrigin === undefined) return { vary: 'Origin' };
  return { vary: 'Origin', 'access-control-allow-origin': allowedOrigin, 'access-control-expose-headers': EXPOSED_HEADERS };
}

/**
 * The answer to a preflight (`OPTIONS`) of an allowed origin: the methods of the endpoint and the request
 * headers above, plus the `Mcp-Param-*` ones it asked for. Without `Origin` it is no preflight: only `Allow`.
 */
export function preflightHeaders(cors: boolean, requestedHeaders: string | undefined): Record<string, string> {
  if (!cors) return { allow: 'POST, GET, DELETE, OPTIONS' };
  const params = (requestedHeaders ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => PARAM_HEADER.test(name));
  return {
    'access-control-allow-methods': 'POST, GET, DELETE',
    'access-control-allow-headers': [...new Set([...ALLOWED_REQUEST_HEADERS, ...params])].join(', '),
    'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
  };
}
