import { z } from 'zod';
import { TENANT_SLUG_PATTERN } from '../common/tenant';
import { defineRpc } from '../define-contract';
import { TaskSupportSchema } from './tool.contracts';

/**
 * The tool catalog as its administrators see it (the admin API of the authorization server calls
 * these; DESIGN.md §3). Every write publishes `catalogChanged` for the servers it touched, so brokers
 * refresh and connected clients get `list_changed`. Errors: `NOT_FOUND` for an unknown tenant, tool
 * or server; `INVALID_PARAMS` for a definition the executor cannot run (a schema Ajv refuses, an
 * unknown built-in handler, a virtual server naming a tool or upstream source the tenant does not have, exposed names
 * that collide, fixed or default arguments the tool's input schema does not accept).
 */

const Slug = z.string().regex(TENANT_SLUG_PATTERN, 'lowercase letters, digits and "-", at most 63, starting with a letter or digit');

/** A scope name as RFC 6749 §3.3 allows it (printable ASCII without space, `"` or `\`). */
export const ScopeNameSchema = z
  .string()
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/, 'a scope is 1..128 printable ASCII characters without space, quote or backslash');

const JsonObjectSchema = z.record(z.string(), z.unknown());

/** An HTTP header name (an RFC 9110 token). Names are case-insensitive: the executor keeps them in lowercase. */
export const HttpHeaderNameSchema = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/, 'an HTTP header name (RFC 9110 token, at most 128 characters)');

/**
 * A configured header as every answer shows it: set, never its value. Header values are secrets
 * (API keys, bearer tokens): write-only, they never leave the tool executor except on the tool's own
 * requests (issue 13 item 7).
 */
export const HttpHeaderSetSchema = z
  .object({ set: z.literal(true) })
  .strict()
  .describe('The header is configured; its value is write-only and never shown');

/** A header value as written: no CR, LF or NUL (they would split the request), at most 8 KiB. */
const HttpHeaderValueSchema = z
  .string()
  .max(8192)
  .regex(/^[^\r\n\0]*$/, 'a header value has no CR, LF or NUL');

const HTTP_HEADERS_MAX = 32;

/**
 * The HTTP tool contract, for administrators (the admin API's OpenAPI document shows it). Mirrors
 * `http-tool.runner.ts`, `http-tool.transport.ts` and `http-answer.mapper.ts` of the tool executor.
 */
const HTTP_TOOL_DESCRIPTION = [
  "An HTTP endpoint the platform calls for each tools/call. The request: `POST` to `url` as written (its query string kept), body = the call's `arguments` as JSON (`{}` when none), headers `Content-Type: application/json`, `Accept: application/json, text/plain;q=0.9, */*;q=0.1`, `Content-Length`, `Host`, `Connection: keep-alive` and the configured `headers`; never the caller's token nor who the caller is.",
  "Limits: the request is aborted after `timeoutMs` (default and maximum 30 s, the executor-wide bound) or the tool's own `timeoutMs`, whichever comes first; redirects are not followed; answers over 1 MiB are discarded; only public addresses are reached unless the operator sets TOOL_HTTP_ALLOW_PRIVATE_NETWORKS=true on the tool executor.",
  'The answer becomes the tool result: a non-2xx status → an error result (`isError: true`) with the status and the first 300 characters of the body; a JSON body (`application/json` or any `+json` type) that is an object with a `content` array → used as the tool result itself (validated; a malformed one is an error result); any other JSON object → `structuredContent` plus its JSON as a text block; other JSON (an array, a number…) → its JSON as a text block; anything else (text, HTML, an empty body, a JSON type that does not parse) → the body, read as UTF-8, as one text block. With an `outputSchema`, `structuredContent` must then match it.',
  "Failures: a refused, unresolvable or unreachable endpoint (DNS, connection, TLS) is an error result \"The tool's endpoint could not be reached (error id …)\" for the caller; the details are in the tool's `lastError` and the executor's log under that id.",
].join(' ');

const HTTP_HEADERS_WRITE_DESCRIPTION = [
  'Headers added to every request (e.g. an API key), by name (case-insensitive; kept in lowercase). Values are write-only: answers show `{ "set": true }` per header, never the value.',
  'When replacing a tool, each named header is: a string → set to it; `null` → removed; `{ "set": true }` → kept as stored (so a definition read from this API can be written back); headers not named, or `headers` absent, are kept as stored.',
  'A tool whose URL moves to another origin (scheme, host or port) does not take stored values along: every kept header must then be sent again or removed, else the write is refused.',
].join(' ');

/** How a tool runs, as an administrator writes it: a built-in handler of the executor, or an HTTP endpoint it POSTs the arguments to. */
export const ToolRunnerSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('builtin'), config: z.object({ handler: z.string().min(1).max(128) }) }),
  z.object({
    kind: z.literal('http'),
    config: z
      .object({
        url: z.string().url().max(2048).describe('The endpoint: http or https, no credentials in it'),
        headers: z
          .record(HttpHeaderNameSchema, z.union([HttpHeaderValueSchema, z.null(), HttpHeaderSetSchema]))
          .refine((headers) => Object.keys(headers).length <= HTTP_HEADERS_MAX, `at most ${HTTP_HEADERS_MAX} headers`)
          .optional()
          .describe(HTTP_HEADERS_WRITE_DESCRIPTION),
        timeoutMs: z
          .number()
          .int()
          .positive()
          .max(15 * 60_000)
          .optional()
          .describe('Upper bound of one request in milliseconds; the executor caps it at 30 s'),
      })
      .describe(HTTP_TOOL_DESCRIPTION),
  }),
]);

/** How a tool runs, as the catalog shows it: an HTTP tool's headers only as set, never their values. */
export const ToolRunnerViewSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('builtin'), config: z.object({ handler: z.string() }) }),
  z.object({
    kind: z.literal('http'),
    config: z
      .object({
        url: z.string(),
        headers: z.record(HttpHeaderNameSchema, HttpHeaderSetSchema).optional().describe('The configured headers, by name; their values are write-only'),
        timeoutMs: z.number().int().positive().optional(),
      })
      .describe(HTTP_TOOL_DESCRIPTION),
  }),
  z.object({
    kind: z.literal('upstream'),
    config: z
      .object({ source: z.string(), tool: z.string() })
      .describe(
        "A tool of an upstream MCP server: the source's name and the upstream's own name of the tool. It is managed through its source (`/upstreams`), not written here",
      ),
  }),
]);

/** What the OpenAPI document says of a tool's `inputSchema`, the `x-mcp-header` rules included. */
const INPUT_SCHEMA_DESCRIPTION =
  'JSON Schema 2020-12 of the arguments; the root `type` is `object`. A property may carry `"x-mcp-header": "<Name>"`: ' +
  'clients of the 2026-07-28 protocol then also send that argument as the HTTP header `Mcp-Param-<Name>` (so gateways can ' +
  'route on it), and a call whose header is missing or disagrees with the argument is refused (400, -32020). The name must be ' +
  "a non-empty HTTP token (letters, digits and !#$%&'*+-.^_`|~), unique ignoring case within the schema, on a `string`, " +
  '`integer` or `boolean` property reached from the root through `properties` only (not under `items`, `anyOf`, `$defs`…); ' +
  'otherwise the tool is refused with 400. Do not mark secrets: header values are visible to every intermediary.';

/** The fields of a tool besides how it runs. */
const ToolFieldsSchema = z.object({
  /** MCP tool name (S-181: 1..128 of `[A-Za-z0-9_.-]`). */
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/),
  title: z.string().max(256).optional(),
  description: z.string().max(8192).optional(),
  /**
   * A JSON Schema (2020-12) object for the arguments; its root `type` is `object`. A property may carry
   * `x-mcp-header` (S-116, S-117); the executor refuses the tool unless each is valid.
   */
  inputSchema: JsonObjectSchema.refine((schema) => schema['type'] === 'object', { message: 'inputSchema must have type "object" (S-183)' }).describe(
    INPUT_SCHEMA_DESCRIPTION,
  ),
  outputSchema: JsonObjectSchema.optional(),
  annotations: JsonObjectSchema.optional(),
  /**
   * Per-call timeout in milliseconds (default 60 s). Up to 24 hours for tools run as tasks; a plain
   * call is answered within 15 minutes (callTool's deadline) whatever the tool's timeout.
   */
  timeoutMs: z
    .number()
    .int()
    .positive()
    .max(24 * 3_600_000)
    .optional(),
  /** A disabled tool stays in the catalog but is neither listed nor callable. */
  enabled: z.boolean().default(true),
  /** Scopes a caller's token must carry to see and call the tool (besides the baseline `mcp`). */
  requiredScopes: z.array(ScopeNameSchema).max(32).default([]),
  /** Whether the tool runs as an MCP task (S-197); absent means `forbidden`, and is shown absent then. */
  execution: z.object({ taskSupport: TaskSupportSchema }).optional(),
});

/** One tool of a tenant's catalog, as an administrator writes it. */
export const ToolDefinitionSchema = ToolFieldsSchema.and(ToolRunnerSchema);
export type ToolDefinitionInput = z.input<typeof ToolDefinitionSchema>;
export type ToolDefinitionRecord = z.output<typeof ToolDefinitionSchema>;

/** What went wrong on an HTTP tool's outbound call (`ToolLastErrorSchema.kind`). */
export const ToolFailureKindSchema = z.enum(['refused', 'unreachable', 'timeout', 'status', 'too_large', 'malformed']);
export type ToolFailureKind = z.infer<typeof ToolFailureKindSchema>;

/**
 * The last failure of an HTTP tool's outbound call, for the tenant's administrators (issue 13 item 5):
 * the caller got a result with only the error id for `refused` and `unreachable`, whose details may
 * name the executor's network; the executor's log has the same line under the same id. One per tool,
 * kept in the executor's database (the same on every replica, across restarts) until a newer failure
 * replaces it or the tool is deleted.
 */
export const ToolLastErrorSchema = z
  .object({
    /** When it happened (ISO 8601). */
    at: z.string(),
    /** The id in the caller's error result and in the executor's log line. */
    errorId: z.string(),
    kind: ToolFailureKindSchema.describe(
      '`refused`: the SSRF guard refused the target; `unreachable`: DNS, connection or TLS failed; `timeout`: no answer in time; `status`: a non-2xx answer; `too_large`: an answer over the size cap; `malformed`: an answer shaped like a tool result that is not one',
    ),
    /** What happened, for an administrator: the guard's reason, the network error, the status and an excerpt. */
    detail: z.string(),
  })
  .describe("The last failure of the tool's outbound call (HTTP tools only); callers saw only the error id for `refused` and `unreachable`");
export type ToolLastError = z.infer<typeof ToolLastErrorSchema>;

/** A tool as the catalog shows it to its administrators: the definition (header values left out), and its last outbound failure. */
export const ToolDefinitionViewSchema = ToolFieldsSchema.extend({
  lastError: ToolLastErrorSchema.optional(),
  /** An upstream tool held back: why it is neither listed nor callable (its definition changed upstream, it is gone, its source is disabled). */
  held: z.string().optional(),
}).and(ToolRunnerViewSchema);
export type ToolDefinitionView = z.output<typeof ToolDefinitionViewSchema>;

/** An MCP tool name (S-181: 1..128 of `[A-Za-z0-9_.-]`), as catalog tools and exposed names are. */
const McpToolNameSchema = z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, 'a tool name is 1..128 of letters, digits, "_", "." and "-"');

/**
 * One tool a virtual server exposes with a presentation of its own (issue 15 §3, composition). The
 * catalog tool is unchanged: other servers see it as it is.
 */
export const ToolPickSchema = z
  .object({
    tool: McpToolNameSchema.describe("The catalog tool's name (any kind: built-in, HTTP, or an upstream source's `<prefix>__<name>`)"),
    name: McpToolNameSchema.optional().describe(
      'The name it has on this server (a rename); absent: the catalog name. Calls use it, and its errors name it. Exposed names are unique on a server: a collision is refused with 400 naming both entries. The same catalog tool may be picked twice under two names (e.g. with other fixed arguments)',
    ),
    title: z.string().max(256).optional().describe("Replaces the tool's title on this server"),
    description: z.string().max(8192).optional().describe("Replaces the tool's description on this server"),
    fixedArguments: JsonObjectSchema.optional().describe(
      "Arguments set by the server: removed from the input schema clients see (and from `required`), merged into every call before validation. A client that sends one gets -32602 `argument <name> is fixed by this server` and nothing runs. Each must be a property of the tool's input schema and its value must validate against that property's schema (else 400)",
    ),
    defaultArguments: JsonObjectSchema.optional().describe(
      'Arguments filled in when the client omits them: they stay in the schema, with `default` set to the value and out of `required`. Same checks as `fixedArguments`; a name may not be both fixed and defaulted',
    ),
    scopes: z
      .array(ScopeNameSchema)
      .max(32)
      .optional()
      .describe(
        "Scopes a caller's token must carry to see and call the tool on this server, besides the tool's own `requiredScopes` (a tool a source brings has none): listed only to callers holding them, a call without them is refused with 403 `insufficient_scope` naming them, and the server's authorization offers them",
      ),
  })
  .strict()
  .describe('A catalog tool exposed with a presentation of its own: a rename, overrides, fixed and default arguments, scopes');
export type ToolPick = z.output<typeof ToolPickSchema>;

/** Every tool of one upstream source on a virtual server, present and future, but the hidden ones. */
export const ServerSourceSchema = z
  .object({
    source: Slug.describe("An upstream source's name (`/upstreams/{name}`)"),
    hidden: z
      .array(McpToolNameSchema)
      .max(1000)
      .optional()
      .describe(
        "Catalog names (`<prefix>__<name>`) of the source's tools not exposed; a name it does not list yet may be given, to keep a tool it adds later out",
      ),
  })
  .strict()
  .describe(
    "Every tool of the upstream source as it is approved (held tools refuse calls saying why, as when picked); tools it adds later appear by themselves. A `tools` pick of one of its tools wins (e.g. to rename it). A tool it adds later whose name is already exposed on the server is not exposed (the executor's log says why)",
  );
export type ServerSource = z.output<typeof ServerSourceSchema>;

/** What is wrong with a `tools` entry that is neither a name nor a pick: the pick's own issues when it is an object. */
function describeToolEntryIssue(issue: { code?: string; input?: unknown; errors?: Array<Array<{ path: PropertyKey[]; message: string }>> }): string {
  if (issue.code !== 'invalid_union' || typeof issue.input !== 'object' || issue.input === null) {
    return "a catalog tool's name, or a pick { tool, name?, title?, description?, fixedArguments?, defaultArguments?, scopes? }";
  }
  const nested = issue.errors?.[1] ?? [];
  return `not a valid pick: ${nested.map((entry) => (entry.path.length ? `${entry.path.map(String).join('.')}: ` : '') + entry.message).join('; ')}`;
}

/** A virtual server as an administrator writes it: its settings and the tools it exposes. */
export const VirtualServerDefinitionSchema = z.object({
  name: Slug,
  title: z.string().max(256).optional(),
  description: z.string().max(8192).optional(),
  instructions: z.string().max(16_384).optional(),
  /** Anonymous callers allowed: an explicit choice, off by default, logged at start. */
  public: z.boolean().default(false),
  /** The tools this server exposes: a catalog tool's name (exposed as it is), or a pick with its presentation. */
  tools: z
    .array(z.union([z.string(), ToolPickSchema], { error: describeToolEntryIssue }))
    .max(1000)
    .default([])
    .describe(
      "The tools this server exposes: a catalog tool's name (exposed as it is) or a pick (`{ tool, name?, title?, description?, fixedArguments?, defaultArguments?, scopes? }`). Read back as written (names stay names, picks stay picks), ordered by exposed name",
    ),
  /** Upstream sources whose every tool this server exposes (issue 15 §3); absent or empty: none. */
  sources: z.array(ServerSourceSchema).max(100).optional(),
});
export type VirtualServerDefinitionInput = z.input<typeof VirtualServerDefinitionSchema>;
export type VirtualServerDefinitionRecord = z.output<typeof VirtualServerDefinitionSchema>;

const Tenant = { tenant: Slug };

/**
 * Creates the tenant's catalog if it does not exist yet (idempotent). With `disabled`, sets whether the
 * tenant is disabled: its virtual servers then say so (`VirtualServer.disabled`) on every replica, so
 * brokers refuse all of its callers, those without a token on public servers included.
 */
export const putTenant = defineRpc({
  subject: 'tool-executor.v1.tenant.put',
  request: z.object({ ...Tenant, disabled: z.boolean().optional() }),
  response: z.object({ created: z.boolean() }),
});

/** Deletes the tenant's whole catalog (tools and virtual servers); `NOT_FOUND` when absent. */
export const deleteTenant = defineRpc({
  subject: 'tool-executor.v1.tenant.delete',
  request: z.object(Tenant),
  response: z.object({ deleted: z.literal(true) }),
});

/** Every tool of a tenant (enabled or not), ordered by name, each with its last outbound failure. */
export const listToolDefinitions = defineRpc({
  subject: 'tool-executor.v1.tool-definition.list',
  request: z.object(Tenant),
  response: z.object({ tools: z.array(ToolDefinitionViewSchema) }),
});

/** One tool of a tenant with its last outbound failure; `NOT_FOUND` when absent. */
export const getToolDefinition = defineRpc({
  subject: 'tool-executor.v1.tool-definition.get',
  request: z.object({ ...Tenant, name: z.string().min(1).max(128) }),
  response: ToolDefinitionViewSchema,
});

/** Creates or replaces a tool (by name). */
export const putToolDefinition = defineRpc({
  subject: 'tool-executor.v1.tool-definition.put',
  request: z.object({ ...Tenant, tool: ToolDefinitionSchema }),
  response: z.object({ created: z.boolean(), tool: ToolDefinitionViewSchema }),
});

/** Deletes a tool; the virtual servers that exposed it stop exposing it. `NOT_FOUND` when absent. */
export const deleteToolDefinition = defineRpc({
  subject: 'tool-executor.v1.tool-definition.delete',
  request: z.object({ ...Tenant, name: z.string().min(1).max(128) }),
  response: z.object({ deleted: z.literal(true) }),
});

/** Every virtual server of a tenant with the tools it exposes, ordered by name. */
export const listServerDefinitions = defineRpc({
  subject: 'tool-executor.v1.server-definition.list',
  request: z.object(Tenant),
  response: z.object({ servers: z.array(VirtualServerDefinitionSchema) }),
});

/** One virtual server of a tenant; `NOT_FOUND` when absent. */
export const getServerDefinition = defineRpc({
  subject: 'tool-executor.v1.server-definition.get',
  request: z.object({ ...Tenant, name: z.string().min(1).max(64) }),
  response: VirtualServerDefinitionSchema,
});

/** Creates or replaces a virtual server (by name). */
export const putServerDefinition = defineRpc({
  subject: 'tool-executor.v1.server-definition.put',
  request: z.object({ ...Tenant, server: VirtualServerDefinitionSchema }),
  response: z.object({ created: z.boolean(), server: VirtualServerDefinitionSchema }),
});

/** Deletes a virtual server; its URL answers 404 afterwards. `NOT_FOUND` when absent. */
export const deleteServerDefinition = defineRpc({
  subject: 'tool-executor.v1.server-definition.delete',
  request: z.object({ ...Tenant, name: z.string().min(1).max(64) }),
  response: z.object({ deleted: z.literal(true) }),
});
