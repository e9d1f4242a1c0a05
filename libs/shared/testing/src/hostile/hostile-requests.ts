import {
  ErrorCodes,
  LEGACY_PROTOCOL_VERSIONS,
  META_KEYS,
  MODERN_PROTOCOL_VERSION,
  modernHeaders,
  modernMeta,
  POST_HEADERS,
  responseMessage,
} from '../mcp/mcp-protocol';
import type { RawRequest, RawResponse } from '../mcp/raw-http';
import { SeededRandom } from './seeded-random';

/** What the generator needs to know about the server under attack. */
export interface HostileTarget {
  /** The virtual server's MCP URL. */
  url: string;
  /** A live legacy session on that URL (hostile requests must not be able to kill it). */
  session: { sessionId: string; protocolVersion: string };
  /** A session that was initialized and then deleted (S-93: 404 for ever after). */
  endedSessionId: string;
  /** The broker's request body limit in bytes. */
  bodyLimitBytes: number;
  /** A tool that takes one string argument, and that argument's name (e.g. `hash_text`, `text`). */
  textTool: { name: string; argument: string };
  /**
   * Where the exhaustion cases (initializes with large or oversized client descriptions) come from:
   * another loopback address than the live session's, so the per-caller session cap they run into ends
   * only their own sessions. Absent: the default address.
   */
  attackerAddress?: string;
}

/** What the platform accepts of `initialize` params (bytes of JSON), and of each `clientInfo` string. */
export const INITIALIZE_PARAMS_LIMIT_BYTES = 64 * 1024;
export const CLIENT_INFO_FIELD_LIMIT = 256;

/**
 * An `initialize` whose client describes itself at length: `experimental` capabilities and `clientInfo`
 * extras of about `bytes` in all (what the platform never reads), beside the capabilities it does read.
 */
export function bloatedInitialize(id: number, bytes: number, random: SeededRandom, clientInfo: Record<string, unknown> = {}): string {
  const half = Math.max(1, Math.floor(bytes / 2));
  // A short random unit repeated: distinct per case, cheap to make by the ten thousand.
  const unit = random.string(64);
  const filler = (length: number): string => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: random.pick(LEGACY_PROTOCOL_VERSIONS),
      capabilities: {
        sampling: { tools: {} },
        elicitation: { form: {}, url: {} },
        roots: { listChanged: true },
        experimental: { bloat: { blob: filler(half) } },
      },
      clientInfo: { name: 'hostile', version: '1.0.0', description: filler(Math.max(0, bytes - half)), ...clientInfo },
    },
  });
}

/** What a correct server answers to one case. */
export interface Expectation {
  /** Acceptable HTTP statuses. */
  status: readonly number[];
  /** When set, the answer must carry a JSON-RPC error with one of these codes (the spec fixes them). */
  codes?: readonly number[];
  /** When set and the status is 200, the answer must carry a response echoing this id exactly. */
  echoId?: string | number;
  /** When true, a 200 answer must carry a `result` (not an error). */
  resultOn200?: boolean;
  /** When set, a JSON-RPC error's `data.supported` must include this version (S-109, -32022). */
  supportedIncludes?: string;
}

/** One generated request and the answer the spec prescribes. */
export interface HostileCase {
  /** Sequence number, stable for a seed. */
  index: number;
  category: HostileCategory;
  /** What is wrong with the request, for failure messages. */
  description: string;
  request: RawRequest;
  expect: Expectation;
}

export type HostileCategory = (typeof CATEGORIES)[number]['name'];

interface Builder {
  random: SeededRandom;
  target: HostileTarget;
  nextId(): number;
}

type CaseDraft = Omit<HostileCase, 'index' | 'category'>;

const LEGACY_ERROR_STATUS = [200, 400] as const;
const ORIGIN_BLOCKED = [403] as const;

function legacyHeaders(target: HostileTarget, extra: Record<string, string> = {}): Record<string, string> {
  return { ...POST_HEADERS, 'mcp-session-id': target.session.sessionId, 'mcp-protocol-version': target.session.protocolVersion, ...extra };
}

function json(value: unknown): string {
  return JSON.stringify(value);
}

function legacyPing(id: unknown): string {
  return json({ jsonrpc: '2.0', id, method: 'ping' });
}

function modernList(id: unknown, meta: unknown = modernMeta()): string {
  return json({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: meta } });
}

/** Produces invalid JSON by corrupting a valid body in one of several ways. */
function brokenJson(random: SeededRandom, valid: string): string {
  const variant = random.int(0, 7);
  switch (variant) {
    case 0:
      return valid.slice(0, random.int(1, valid.length - 2));
    case 1:
      return `${valid}${random.pick(['}', ']', ',', 'x', '{}'])}`;
    case 2:
      return valid.replace(/"/g, "'");
    case 3:
      return valid.replace('}', ',}');
    case 4:
      return random.pick(['{', '[', '{"jsonrpc":', 'nul', 'tru', '"unterminated', '{"a":NaN}', '{"a":undefined}', '{a:1}', '}{']);
    case 5:
      return random.string(random.int(1, 64), '{}[]":,\\ abc123\n\t');
    case 6:
      return valid.replace(':', '::');
    default:
      return `${valid.slice(0, -1)}, "extra": }`;
  }
}

function stillParses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The categories, each a generator of one case. `max` caps expensive ones (bodies over the limit
 * cost megabytes each); the rest share the count evenly.
 */
const CATEGORIES = [
  {
    name: 'broken-json',
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      const modern = random.next() < 0.5;
      const valid = modern ? modernList(nextId()) : legacyPing(nextId());
      let body = brokenJson(random, valid);
      if (stillParses(body)) body = `${body}{`;
      return {
        description: `unparseable body (${modern ? 'modern' : 'legacy'} headers): ${body.slice(0, 60)}`,
        request: { url: target.url, headers: modern ? modernHeaders('tools/list') : legacyHeaders(target), body },
        // spec S-11: -32700 for a body that is not JSON.
        expect: { status: [400], codes: [ErrorCodes.ParseError] },
      };
    },
  },
  {
    name: 'not-a-request-object',
    build: ({ random, target }: Builder): CaseDraft => {
      const body = random.pick(['42', '"ping"', 'null', 'true', 'false', '{}', '0', '-1.5', '"{}"', '{"jsonrpc":"2.0"}']);
      return {
        description: `JSON that is not a JSON-RPC message: ${body}`,
        request: { url: target.url, headers: legacyHeaders(target), body },
        // spec S-12: -32600 for valid JSON that is not a request object.
        expect: { status: LEGACY_ERROR_STATUS, codes: [ErrorCodes.InvalidRequest] },
      };
    },
  },
  {
    name: 'invalid-envelope',
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      const id = nextId();
      const variants: [string, unknown, readonly number[]][] = [
        ['jsonrpc "1.0"', { jsonrpc: '1.0', id, method: 'ping' }, [ErrorCodes.InvalidRequest]],
        ['jsonrpc 2 (number)', { jsonrpc: 2, id, method: 'ping' }, [ErrorCodes.InvalidRequest]],
        ['no jsonrpc member', { id, method: 'ping' }, [ErrorCodes.InvalidRequest]],
        ['numeric method', { jsonrpc: '2.0', id, method: random.int(0, 1e6) }, [ErrorCodes.InvalidRequest]],
        ['object method', { jsonrpc: '2.0', id, method: { name: 'ping' } }, [ErrorCodes.InvalidRequest]],
        ['null method', { jsonrpc: '2.0', id, method: null }, [ErrorCodes.InvalidRequest]],
        ['object id', { jsonrpc: '2.0', id: { id }, method: 'ping' }, [ErrorCodes.InvalidRequest]],
        ['array id', { jsonrpc: '2.0', id: [id], method: 'ping' }, [ErrorCodes.InvalidRequest]],
        ['boolean id', { jsonrpc: '2.0', id: true, method: 'ping' }, [ErrorCodes.InvalidRequest]],
        ['string params', { jsonrpc: '2.0', id, method: 'tools/list', params: 'all' }, [ErrorCodes.InvalidRequest, ErrorCodes.InvalidParams]],
        ['numeric params', { jsonrpc: '2.0', id, method: 'tools/list', params: 7 }, [ErrorCodes.InvalidRequest, ErrorCodes.InvalidParams]],
        ['array params', { jsonrpc: '2.0', id, method: 'tools/list', params: [1, 2] }, [ErrorCodes.InvalidRequest, ErrorCodes.InvalidParams]],
        ['both result and error', { jsonrpc: '2.0', id, result: {}, error: { code: 1, message: 'x' } }, [ErrorCodes.InvalidRequest]],
        ['result without id', { jsonrpc: '2.0', result: {} }, [ErrorCodes.InvalidRequest]],
      ];
      const [what, message, codes] = random.pick(variants);
      return {
        description: `malformed JSON-RPC envelope: ${what}`,
        request: { url: target.url, headers: legacyHeaders(target), body: json(message) },
        expect: { status: LEGACY_ERROR_STATUS, codes },
      };
    },
  },
  {
    name: 'id-null',
    build: ({ random, target }: Builder): CaseDraft => {
      const modern = random.next() < 0.5;
      return {
        description: `request with id null (${modern ? 'modern' : 'legacy'})`,
        request: modern
          ? { url: target.url, headers: modernHeaders('tools/list'), body: modernList(null) }
          : { url: target.url, headers: legacyHeaders(target), body: legacyPing(null) },
        // spec S-2: id null is not a valid MCP request id.
        expect: { status: LEGACY_ERROR_STATUS, codes: [ErrorCodes.InvalidRequest] },
      };
    },
  },
  {
    name: 'huge-id',
    build: ({ random, target }: Builder): CaseDraft => {
      const kind = random.int(0, 5);
      if (kind <= 2) {
        // Valid ids of any size must round-trip exactly (spec S-5).
        const id = kind === 0 ? random.string(random.int(1_000, 60_000)) : kind === 1 ? Number.MAX_SAFE_INTEGER - random.int(0, 1000) : -random.int(1, 2 ** 31);
        return {
          description: `valid but extreme id (${typeof id === 'string' ? `${id.length}-char string` : id})`,
          request: { url: target.url, headers: legacyHeaders(target), body: legacyPing(id) },
          expect: { status: [200], echoId: id, resultOn200: true },
        };
      }
      // Not integers, or beyond what a double holds exactly: reject (-32600) or echo faithfully.
      const raw = random.pick(['1e300', '1.5', '-0.25', '123456789012345678901234567890', '9007199254740993', '1e-7']);
      return {
        description: `non-integer or unsafe numeric id ${raw}`,
        request: { url: target.url, headers: legacyHeaders(target), body: `{"jsonrpc":"2.0","id":${raw},"method":"ping"}` },
        expect: { status: LEGACY_ERROR_STATUS, echoId: Number(raw) },
      };
    },
  },
  {
    name: 'huge-string',
    max: 40,
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      const size = Math.min(random.int(10_000, 300_000), Math.floor(target.bodyLimitBytes / 2));
      const big = random.string(size);
      const where = random.int(0, 3);
      if (where === 0) {
        return {
          description: `${size}-char tool argument`,
          request: {
            url: target.url,
            headers: legacyHeaders(target),
            body: json({
              jsonrpc: '2.0',
              id: nextId(),
              method: 'tools/call',
              params: { name: target.textTool.name, arguments: { [target.textTool.argument]: big } },
            }),
          },
          expect: { status: [200], resultOn200: true },
        };
      }
      if (where === 1) {
        return {
          description: `${size}-char tool name`,
          request: {
            url: target.url,
            headers: legacyHeaders(target),
            body: json({ jsonrpc: '2.0', id: nextId(), method: 'tools/call', params: { name: big, arguments: {} } }),
          },
          // spec S-188: unknown tool is -32602.
          expect: { status: LEGACY_ERROR_STATUS, codes: [ErrorCodes.InvalidParams] },
        };
      }
      if (where === 2) {
        return {
          description: `${size}-char method name`,
          request: { url: target.url, headers: legacyHeaders(target), body: json({ jsonrpc: '2.0', id: nextId(), method: big }) },
          expect: { status: [200, 400, 404], codes: [ErrorCodes.MethodNotFound, ErrorCodes.InvalidRequest] },
        };
      }
      const name = target.textTool.name;
      return {
        description: `${size}-char argument, modern request`,
        request: {
          url: target.url,
          headers: modernHeaders('tools/call', name),
          body: json({
            jsonrpc: '2.0',
            id: nextId(),
            method: 'tools/call',
            params: { name, arguments: { [target.textTool.argument]: big }, _meta: modernMeta() },
          }),
        },
        expect: { status: [200], resultOn200: true },
      };
    },
  },
  {
    name: 'body-over-limit',
    max: 6,
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      const overshoot = random.int(1, 64 * 1024);
      const filler = 'x'.repeat(target.bodyLimitBytes + overshoot);
      return {
        description: `body ${overshoot} bytes over the ${target.bodyLimitBytes}-byte limit`,
        request: {
          url: target.url,
          headers: legacyHeaders(target),
          body: json({
            jsonrpc: '2.0',
            id: nextId(),
            method: 'tools/call',
            params: { name: target.textTool.name, arguments: { [target.textTool.argument]: filler } },
          }),
          timeoutMs: 20_000,
        },
        expect: { status: [413] },
      };
    },
  },
  {
    name: 'unknown-method',
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      const method = random.pick([
        `x-${random.string(8)}/do`,
        'tools/lists',
        'TOOLS/LIST',
        'rpc.discover',
        'initialise',
        `tools/${random.string(5)}`,
        'notifications/initialized/extra',
        '../../etc/passwd',
        'constructor',
        '__proto__',
        'hasOwnProperty',
      ]);
      const modern = random.next() < 0.5;
      if (modern) {
        return {
          description: `unknown method "${method}" (modern)`,
          request: { url: target.url, headers: modernHeaders(method), body: json({ jsonrpc: '2.0', id: nextId(), method, params: { _meta: modernMeta() } }) },
          // spec S-111: 404 with a -32601 body on the modern path.
          expect: { status: [404], codes: [ErrorCodes.MethodNotFound] },
        };
      }
      return {
        description: `unknown method "${method}" (legacy session)`,
        request: { url: target.url, headers: legacyHeaders(target), body: json({ jsonrpc: '2.0', id: nextId(), method }) },
        // spec S-13: -32601; the legacy era fixes no HTTP status for it.
        expect: { status: [200, 400, 404], codes: [ErrorCodes.MethodNotFound] },
      };
    },
  },
  {
    name: 'unknown-session',
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      const ended = random.next() < 0.3;
      const sessionId = ended
        ? target.endedSessionId
        : random.pick([
            random.string(32, '0123456789abcdef'),
            `${random.string(8, '0123456789abcdef')}-${random.string(4, '0123456789abcdef')}-4${random.string(3, '0123456789abcdef')}-a${random.string(3, '0123456789abcdef')}-${random.string(12, '0123456789abcdef')}`,
            random.string(random.int(1, 300), '!#$%&*+-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ^_`abcdefghijklmnopqrstuvwxyz|~'),
            `${target.session.sessionId}x`,
          ]);
      const httpMethod = random.pick(['POST', 'POST', 'POST', 'DELETE', 'GET']);
      const headers: Record<string, string> = { ...POST_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': target.session.protocolVersion };
      if (httpMethod === 'GET') headers['accept'] = 'text/event-stream';
      return {
        description: `${httpMethod} with ${ended ? 'an ended' : 'an unknown'} session id`,
        request: {
          url: target.url,
          method: httpMethod,
          headers,
          ...(httpMethod === 'POST' ? { body: json({ jsonrpc: '2.0', id: nextId(), method: random.pick(['ping', 'tools/list']) }) } : {}),
        },
        // spec S-93: 404 for a terminated or unknown session.
        expect: { status: [404] },
      };
    },
  },
  {
    name: 'missing-session',
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      const method = random.pick(['ping', 'tools/list', 'logging/setLevel']);
      return {
        description: `legacy ${method} without a session id`,
        request: {
          url: target.url,
          headers: { ...POST_HEADERS, 'mcp-protocol-version': random.pick(LEGACY_PROTOCOL_VERSIONS) },
          body: json({ jsonrpc: '2.0', id: nextId(), method, ...(method === 'logging/setLevel' ? { params: { level: 'info' } } : {}) }),
        },
        // spec S-92: 400 for a non-initialize request without a session.
        expect: { status: [400] },
      };
    },
  },
  {
    name: 'header-mismatch',
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      const tool = target.textTool.name;
      const call = (meta: unknown = modernMeta()): string =>
        json({ jsonrpc: '2.0', id: nextId(), method: 'tools/call', params: { name: tool, arguments: { [target.textTool.argument]: 'x' }, _meta: meta } });
      const variants: [string, Record<string, string>, string][] = [
        ['Mcp-Method names another method', modernHeaders('tools/call'), modernList(nextId())],
        ['Mcp-Method missing', withoutHeader(modernHeaders('tools/list'), 'mcp-method'), modernList(nextId())],
        ['Mcp-Method differs in case', modernHeaders('Tools/List'), modernList(nextId())],
        ['Mcp-Name names another tool', modernHeaders('tools/call', `${tool}_other`), call()],
        ['Mcp-Name missing on tools/call', modernHeaders('tools/call'), call()],
        ['Mcp-Name with a wrong base64 sentinel', modernHeaders('tools/call', `=?base64?${Buffer.from(`${tool}!`).toString('base64')}?=`), call()],
        ['Mcp-Name with a broken base64 sentinel', modernHeaders('tools/call', '=?base64?***?='), call()],
        [
          'MCP-Protocol-Version header differs from _meta',
          { ...modernHeaders('tools/list'), 'mcp-protocol-version': random.pick(LEGACY_PROTOCOL_VERSIONS) },
          modernList(nextId()),
        ],
        ['MCP-Protocol-Version header missing', withoutHeader(modernHeaders('tools/list'), 'mcp-protocol-version'), modernList(nextId())],
        [
          '_meta version differs from header',
          modernHeaders('tools/list'),
          modernList(nextId(), { ...modernMeta(), [META_KEYS.protocolVersion]: '2026-08-01' }),
        ],
      ];
      const [what, headers, body] = random.pick(variants);
      return {
        description: `modern header/body mismatch: ${what}`,
        request: { url: target.url, headers, body },
        // spec S-115: 400 + -32020 HeaderMismatch.
        expect: { status: [400], codes: [ErrorCodes.HeaderMismatch] },
      };
    },
  },
  {
    name: 'header-match-sentinel',
    max: 20,
    build: ({ target, nextId }: Builder): CaseDraft => {
      const tool = target.textTool.name;
      return {
        description: 'Mcp-Name as a correct base64 sentinel (must be decoded, S-114)',
        request: {
          url: target.url,
          headers: modernHeaders('tools/call', `=?base64?${Buffer.from(tool).toString('base64')}?=`),
          body: json({
            jsonrpc: '2.0',
            id: nextId(),
            method: 'tools/call',
            params: { name: tool, arguments: { [target.textTool.argument]: 'sentinel' }, _meta: modernMeta() },
          }),
        },
        expect: { status: [200], resultOn200: true },
      };
    },
  },
  {
    name: 'bad-protocol-version',
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      const kind = random.int(0, 2);
      if (kind === 0) {
        const version = random.pick(['garbage', '2025-13-45', '1.0', '2024-11-05', '2099-01-01', '2025-11-25x', 'null']);
        return {
          description: `legacy session with MCP-Protocol-Version "${version}"`,
          request: { url: target.url, headers: legacyHeaders(target, { 'mcp-protocol-version': version }), body: legacyPing(nextId()) },
          // spec S-95: 400 for an invalid or unsupported version header.
          expect: { status: [400] },
        };
      }
      if (kind === 1) {
        const version = random.pick(LEGACY_PROTOCOL_VERSIONS);
        return {
          description: `legacy session with another supported MCP-Protocol-Version "${version}"`,
          request: { url: target.url, headers: legacyHeaders(target, { 'mcp-protocol-version': version }), body: legacyPing(nextId()) },
          expect: { status: [200], resultOn200: true },
        };
      }
      const version = random.pick(['2099-01-01', '2026-13-01', 'garbage', '2027-01-01']);
      return {
        description: `modern request for unsupported version "${version}"`,
        request: {
          url: target.url,
          headers: { ...modernHeaders('tools/list'), 'mcp-protocol-version': version },
          body: modernList(nextId(), { ...modernMeta(), [META_KEYS.protocolVersion]: version }),
        },
        // spec S-109: 400 + -32022 with data.supported.
        expect: { status: [400], codes: [ErrorCodes.UnsupportedProtocolVersion], supportedIncludes: MODERN_PROTOCOL_VERSION },
      };
    },
  },
  {
    name: 'bad-origin-or-host',
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      const modern = random.next() < 0.5;
      const base = modern
        ? { headers: modernHeaders('tools/list'), body: modernList(nextId()) }
        : { headers: legacyHeaders(target), body: legacyPing(nextId()) };
      const local = new URL(target.url);
      const kind = random.int(0, 3);
      if (kind === 0 || kind === 1) {
        const origin = random.pick([
          'http://evil.example.com',
          'null',
          'https://attacker.test',
          `http://${local.host}.evil.example.com`,
          'http://127.0.0.1.nip.io',
          'file://',
        ]);
        return {
          description: `foreign Origin ${origin}`,
          request: { url: target.url, headers: { ...base.headers, origin }, body: base.body },
          // spec S-72: 403 for a present but not allowed Origin.
          expect: { status: ORIGIN_BLOCKED },
        };
      }
      if (kind === 2) {
        const host = random.pick(['evil.example.com', `evil.example.com:${local.port}`, 'attacker.test:80', '10.0.0.1']);
        return {
          description: `foreign Host ${host} (DNS rebinding)`,
          request: { url: target.url, headers: { ...base.headers, host }, body: base.body },
          expect: { status: [400, 403, 421] },
        };
      }
      const origin = random.pick([`http://${local.host}`, `http://localhost:${local.port}`]);
      return {
        description: `local Origin ${origin} (allowed)`,
        request: { url: target.url, headers: { ...base.headers, origin }, body: base.body },
        expect: { status: [200], resultOn200: true },
      };
    },
  },
  {
    name: 'bad-accept-or-content-type',
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      const modern = random.next() < 0.5;
      const base = modern
        ? { headers: modernHeaders('tools/list'), body: modernList(nextId()) }
        : { headers: legacyHeaders(target), body: legacyPing(nextId()) };
      if (random.next() < 0.5) {
        const accept = random.pick(['text/plain', 'application/xml', 'image/png', '*/x', 'text/event-stream', 'application/json', '']);
        const headers = accept === '' ? withoutHeader(base.headers, 'accept') : { ...base.headers, accept };
        return {
          description: `Accept "${accept}"`,
          request: { url: target.url, headers, body: base.body },
          // spec S-76: no status is prescribed; any non-5xx policy with a well-formed answer.
          expect: { status: [200, 400, 406] },
        };
      }
      const contentType = random.pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', '']);
      const headers = contentType === '' ? withoutHeader(base.headers, 'content-type') : { ...base.headers, 'content-type': contentType };
      return {
        description: `Content-Type "${contentType}"`,
        request: { url: target.url, headers, body: base.body },
        expect: { status: [400, 415] },
      };
    },
  },
  {
    name: 'batch',
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      const batches = [
        [],
        [JSON.parse(legacyPing(nextId()))],
        [JSON.parse(legacyPing(nextId())), JSON.parse(legacyPing(nextId()))],
        [{ jsonrpc: '2.0', method: 'notifications/initialized' }],
        [1, 2, 3],
      ];
      const batch = random.pick(batches);
      return {
        description: `JSON-RPC batch of ${batch.length}`,
        request: { url: target.url, headers: legacyHeaders(target), body: json(batch) },
        // spec S-10: batching was removed; a POST carries exactly one message.
        expect: { status: [400], codes: [ErrorCodes.InvalidRequest] },
      };
    },
  },
  {
    name: 'notification-shapes',
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      const kind = random.int(0, 3);
      if (kind === 0) {
        const method = random.pick(['notifications/initialized', 'notifications/cancelled', 'notifications/progress']);
        return {
          description: `notification method ${method} sent with an id`,
          request: { url: target.url, headers: legacyHeaders(target), body: json({ jsonrpc: '2.0', id: nextId(), method, params: {} }) },
          expect: { status: [200, 400, 404], codes: [ErrorCodes.MethodNotFound, ErrorCodes.InvalidRequest] },
        };
      }
      if (kind === 1) {
        return {
          description: 'unknown notification in a legacy session',
          request: { url: target.url, headers: legacyHeaders(target), body: json({ jsonrpc: '2.0', method: `notifications/${random.string(6)}` }) },
          // spec S-77/S-78: 202 when accepted, 400 when rejected.
          expect: { status: [202, 400] },
        };
      }
      if (kind === 2) {
        return {
          description: 'client response to a request the server never sent (legacy)',
          request: { url: target.url, headers: legacyHeaders(target), body: json({ jsonrpc: '2.0', id: `srv-${random.string(6)}`, result: {} }) },
          expect: { status: [202, 400] },
        };
      }
      return {
        description: 'notification on the modern path',
        request: {
          url: target.url,
          headers: modernHeaders('notifications/cancelled'),
          body: json({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: random.int(1, 99), _meta: modernMeta() } }),
        },
        // spec S-102: 202 when accepted, 400 otherwise.
        expect: { status: [202, 400] },
      };
    },
  },
  {
    name: 'invalid-params',
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      const id = nextId();
      const legacy: [string, unknown][] = [
        ['tools/call with numeric name', { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 42 } }],
        ['tools/call without name', { jsonrpc: '2.0', id, method: 'tools/call', params: { arguments: {} } }],
        ['tools/call with array arguments', { jsonrpc: '2.0', id, method: 'tools/call', params: { name: target.textTool.name, arguments: ['a'] } }],
        ['tools/call with string arguments', { jsonrpc: '2.0', id, method: 'tools/call', params: { name: target.textTool.name, arguments: 'a' } }],
        ['tools/call of an unknown tool', { jsonrpc: '2.0', id, method: 'tools/call', params: { name: `no_such_tool_${random.string(6)}`, arguments: {} } }],
        [
          'logging/setLevel with an unknown level',
          { jsonrpc: '2.0', id, method: 'logging/setLevel', params: { level: random.pick(['verbose', 'INFO', '', 'trace']) } },
        ],
        ['logging/setLevel without a level', { jsonrpc: '2.0', id, method: 'logging/setLevel', params: {} }],
        ['tools/list with a forged cursor', { jsonrpc: '2.0', id, method: 'tools/list', params: { cursor: random.string(random.int(1, 40)) } }],
        ['tools/list with a numeric cursor', { jsonrpc: '2.0', id, method: 'tools/list', params: { cursor: 5 } }],
      ];
      if (random.next() < 0.7) {
        const [what, message] = random.pick(legacy);
        return {
          description: `legacy ${what}`,
          request: { url: target.url, headers: legacyHeaders(target), body: json(message) },
          // spec S-14, S-188, S-234, S-243: -32602.
          expect: { status: LEGACY_ERROR_STATUS, codes: [ErrorCodes.InvalidParams] },
        };
      }
      const unknown = `no_such_tool_${random.string(6)}`;
      const modern: [string, Record<string, string>, string, readonly number[]][] = [
        [
          'tools/call of an unknown tool',
          modernHeaders('tools/call', unknown),
          json({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: unknown, arguments: {}, _meta: modernMeta() } }),
          [200, 400],
        ],
        ['unknown per-request logLevel', modernHeaders('tools/list'), modernList(id, modernMeta({ [META_KEYS.logLevel]: 'loud' })), [200, 400]],
        ['_meta without clientCapabilities', modernHeaders('tools/list'), modernList(id, { [META_KEYS.protocolVersion]: MODERN_PROTOCOL_VERSION }), [400]],
        ['clientCapabilities not an object', modernHeaders('tools/list'), modernList(id, { ...modernMeta(), [META_KEYS.clientCapabilities]: 5 }), [400]],
      ];
      const [what, headers, body, status] = random.pick(modern);
      return {
        description: `modern ${what}`,
        request: { url: target.url, headers, body },
        expect: { status, codes: [ErrorCodes.InvalidParams] },
      };
    },
  },
  {
    name: 'http-method',
    build: ({ random, target }: Builder): CaseDraft => {
      const method = random.pick(['PUT', 'PATCH', 'GET', 'DELETE']);
      const headers: Record<string, string> = method === 'GET' ? { accept: 'text/event-stream' } : { ...POST_HEADERS };
      return {
        description: `${method} without a session`,
        request: { url: target.url, method, headers, ...(method === 'PUT' || method === 'PATCH' ? { body: legacyPing(1) } : {}) },
        // spec S-121: 405 for GET/DELETE off a session; S-92 allows 400 for a missing session.
        expect: { status: method === 'PUT' || method === 'PATCH' ? [404, 405] : [400, 405] },
      };
    },
  },
  {
    name: 'unknown-virtual-server',
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      const url = new URL(target.url);
      const path = random.pick([
        `/nope-${random.string(4)}/default/mcp`,
        `/demo/nope-${random.string(4)}/mcp`,
        '/demo/default/mcp/extra',
        '/demo/mcp',
        '/demo/default/mcpx',
      ]);
      return {
        description: `MCP request to ${path}`,
        request: { url: `${url.origin}${path}`, headers: modernHeaders('tools/list'), body: modernList(nextId()) },
        expect: { status: [404] },
      };
    },
  },
  {
    name: 'deep-or-polluting-json',
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      if (random.next() < 0.5) {
        const depth = random.int(100, 5_000);
        const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
        return {
          description: `arguments nested ${depth} levels deep`,
          request: {
            url: target.url,
            headers: legacyHeaders(target),
            body: `{"jsonrpc":"2.0","id":${nextId()},"method":"tools/call","params":{"name":"${target.textTool.name}","arguments":{"${target.textTool.argument}":${nested}}}}`,
          },
          // A tool error (isError) or an invalid-params/request error; never a crash.
          expect: { status: [200, 400] },
        };
      }
      return {
        description: 'arguments carrying __proto__ and constructor.prototype',
        request: {
          url: target.url,
          headers: legacyHeaders(target),
          body: `{"jsonrpc":"2.0","id":${nextId()},"method":"tools/call","params":{"name":"${target.textTool.name}","arguments":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"${target.textTool.argument}":"x"}}}`,
        },
        expect: { status: [200, 400] },
      };
    },
  },
  {
    name: 'invalid-utf8',
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      const bad = Buffer.from(random.pick(['ff', 'c3', 'ed a0 80', 'f8 88 80 80 80', 'fe ff']).replace(/ /g, ''), 'hex');
      const body = Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${nextId()},"method":"ping`), bad, Buffer.from('"}')]);
      return {
        description: 'method name with invalid UTF-8 bytes',
        request: { url: target.url, headers: legacyHeaders(target), body },
        expect: { status: [200, 400, 404], codes: [ErrorCodes.ParseError, ErrorCodes.InvalidRequest, ErrorCodes.MethodNotFound] },
      };
    },
  },
  {
    name: 'initialize-variants',
    max: 40,
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      const kind = random.int(0, 2);
      if (kind === 0) {
        return {
          description: 'initialize without params',
          request: { url: target.url, headers: { ...POST_HEADERS }, body: json({ jsonrpc: '2.0', id: nextId(), method: 'initialize' }) },
          expect: { status: LEGACY_ERROR_STATUS, codes: [ErrorCodes.InvalidParams, ErrorCodes.InvalidRequest] },
        };
      }
      if (kind === 1) {
        return {
          description: 'initialize with a wrongly typed protocolVersion',
          request: {
            url: target.url,
            headers: { ...POST_HEADERS },
            body: json({
              jsonrpc: '2.0',
              id: nextId(),
              method: 'initialize',
              params: { protocolVersion: 20251125, capabilities: {}, clientInfo: { name: 'x', version: '1' } },
            }),
          },
          expect: { status: LEGACY_ERROR_STATUS, codes: [ErrorCodes.InvalidParams, ErrorCodes.InvalidRequest] },
        };
      }
      return {
        description: 'initialize inside an existing session',
        request: {
          url: target.url,
          headers: legacyHeaders(target),
          body: json({
            jsonrpc: '2.0',
            id: nextId(),
            method: 'initialize',
            params: { protocolVersion: target.session.protocolVersion, capabilities: {}, clientInfo: { name: 'x', version: '1' } },
          }),
        },
        expect: { status: [200, 400] },
      };
    },
  },
  {
    name: 'initialize-exhaustion',
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      const from = target.attackerAddress === undefined ? {} : { localAddress: target.attackerAddress };
      if (random.next() < 0.8) {
        const bytes = random.int(4 * 1024, INITIALIZE_PARAMS_LIMIT_BYTES - 4 * 1024);
        return {
          description: `initialize describing the client in ${bytes} bytes the platform does not read`,
          request: { url: target.url, headers: { ...POST_HEADERS }, body: bloatedInitialize(nextId(), bytes, random), ...from },
          // Accepted: the session keeps only what the platform reads; beyond the caller's cap its oldest sessions end.
          expect: { status: [200], resultOn200: true },
        };
      }
      const field = random.pick(['name', 'version', 'title']);
      const length = random.int(CLIENT_INFO_FIELD_LIMIT + 1, 4 * CLIENT_INFO_FIELD_LIMIT);
      return {
        description: `initialize with a ${length}-character clientInfo.${field}`,
        request: {
          url: target.url,
          headers: { ...POST_HEADERS },
          body: bloatedInitialize(nextId(), 1_024, random, { [field]: random.string(length) }),
          ...from,
        },
        expect: { status: [400], codes: [ErrorCodes.InvalidParams] },
      };
    },
  },
  {
    name: 'initialize-oversized',
    max: 30,
    build: ({ random, target, nextId }: Builder): CaseDraft => {
      // Up to half again the NATS message size (1 MiB), which a stored session once had to fit in.
      const bytes = random.int(INITIALIZE_PARAMS_LIMIT_BYTES + 1, Math.min(1.5 * 1024 * 1024, target.bodyLimitBytes - 4 * 1024));
      return {
        description: `initialize of ${bytes} bytes, over the platform's ${INITIALIZE_PARAMS_LIMIT_BYTES}`,
        request: {
          url: target.url,
          headers: { ...POST_HEADERS },
          body: bloatedInitialize(nextId(), bytes, random),
          ...(target.attackerAddress === undefined ? {} : { localAddress: target.attackerAddress }),
        },
        // A clear client error, never a 503 (a megabyte once exceeded the NATS message size on its way to the store).
        expect: { status: [400], codes: [ErrorCodes.InvalidParams] },
      };
    },
  },
] as const satisfies readonly { name: string; max?: number; build: (builder: Builder) => CaseDraft }[];

function withoutHeader(headers: Record<string, string>, name: string): Record<string, string> {
  const copy = { ...headers };
  delete copy[name];
  return copy;
}

/** Names of every category, in generation order. */
export const HOSTILE_CATEGORIES: readonly HostileCategory[] = CATEGORIES.map((category) => category.name);

/**
 * `count` hostile requests against `target`, the same ones for the same seed: categories take turns
 * (capped ones drop out once full), and each draws its variant from the seeded generator.
 */
export function generateHostileCases(target: HostileTarget, options: { seed: number; count: number }): HostileCase[] {
  const random = new SeededRandom(options.seed);
  let id = 1_000;
  const builder: Builder = { random, target, nextId: () => (id += 1) };
  const made = new Map<string, number>();
  const cases: HostileCase[] = [];
  while (cases.length < options.count) {
    for (const category of CATEGORIES) {
      if (cases.length >= options.count) break;
      const max: number | undefined = 'max' in category ? category.max : undefined;
      const sofar = made.get(category.name) ?? 0;
      if (max !== undefined && sofar >= max) continue;
      made.set(category.name, sofar + 1);
      cases.push({ index: cases.length, category: category.name, ...category.build(builder) });
    }
  }
  return cases;
}

/** Every way `answer` departs from `expected`; empty when it is what the spec prescribes. */
export function checkHostileAnswer(expected: Expectation, answer: RawResponse): string[] {
  const problems: string[] = [];
  if (!expected.status.includes(answer.status)) problems.push(`status ${answer.status}, expected one of ${expected.status.join('/')}`);
  if (answer.status === 202 && answer.body.trim() !== '') problems.push('202 with a body (spec S-77: empty)');
  if (answer.status >= 400 && answer.status !== 413 && answer.messages === undefined && answer.body.trim() !== '' && answer.contentType.includes('json')) {
    problems.push('error body is not parseable JSON');
  }
  const response = responseMessage(answer);
  // Every case is the client's mistake: an internal error means the input reached code that broke.
  if (response?.error?.code === ErrorCodes.InternalError)
    problems.push(`internal error -32603 for a client mistake: ${String(response.error.message).slice(0, 120)}`);
  if (expected.codes !== undefined) {
    const code = response?.error?.code;
    if (typeof code !== 'number' || !expected.codes.includes(code)) {
      problems.push(`JSON-RPC error code ${String(code)}, expected one of ${expected.codes.join('/')}`);
    }
  }
  if (answer.status === 200 && expected.resultOn200 && response?.result === undefined) {
    problems.push(`200 without a result: ${answer.body.slice(0, 200)}`);
  }
  if (answer.status === 200 && expected.echoId !== undefined && response !== undefined && response.id !== expected.echoId) {
    problems.push(`id not echoed: sent ${String(expected.echoId).slice(0, 40)}, got ${String(response.id).slice(0, 40)}`);
  }
  if (expected.supportedIncludes !== undefined && problems.length === 0) {
    const supported = (response?.error?.data as { supported?: unknown } | undefined)?.supported;
    if (!Array.isArray(supported) || !supported.includes(expected.supportedIncludes)) {
      problems.push(`error.data.supported ${JSON.stringify(supported)} lacks ${expected.supportedIncludes}`);
    }
  }
  return problems;
}
