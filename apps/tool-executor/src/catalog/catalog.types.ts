import type { toolExecutor } from '@mcp-platform/protocol-contracts';

/** A JSON object as stored in jsonb columns and published in tool definitions. */
export type JsonObject = { [key: string]: unknown };

/** How a tool runs. */
export type ToolKind = 'builtin' | 'http' | 'upstream';

/** A built-in tool names its implementation in the process's registry (`builtin/`). */
export interface BuiltinToolConfig {
  handler: string;
}

/** An HTTP tool POSTs its arguments as JSON to `url` (`http-tools/`). */
export interface HttpToolConfig {
  url: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/** An upstream tool calls the tool `tool` of the upstream source whose id is `source`, named `sourceName` (`upstreams/`). */
export interface UpstreamToolConfig {
  source: string;
  sourceName: string;
  tool: string;
}

/** What a tool is, independent of storage: the catalog's domain type. */
export interface ToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations?: JsonObject;
  kind: ToolKind;
  config: BuiltinToolConfig | HttpToolConfig | UpstreamToolConfig;
  timeoutMs: number;
  enabled: boolean;
  /**
   * Scopes a caller's token must carry to see and call the tool, besides the baseline `mcp`
   * (S-142, S-143). Empty: every caller of the virtual server may use it.
   */
  requiredScopes: string[];
  /**
   * Whether the tool runs as an MCP task (S-197): `forbidden` (the default: plain calls only), `optional`
   * (the caller or the platform may turn a call into a task), `required` (a plain call is `UNSUPPORTED`).
   */
  taskSupport: toolExecutor.TaskSupport;
}

/** The last outbound failure of an HTTP tool, kept for its administrators (`toolExecutor.ToolLastErrorSchema`). */
export interface ToolLastError {
  at: Date;
  errorId: string;
  kind: toolExecutor.ToolFailureKind;
  /** For administrators only: it may name hosts and addresses of the executor's network. */
  detail: string;
}

/** A stored tool: its definition plus identity and version (the validator cache key). */
export interface CatalogTool extends ToolDefinition {
  id: string;
  tenant: string;
  updatedAt: Date;
  /** An upstream tool held back (its definition changed upstream, or it is no longer listed): neither listed nor callable. */
  held?: string;
}

/** A virtual server's settings. */
export interface VirtualServerDefinition {
  name: string;
  title?: string;
  description?: string;
  instructions?: string;
  public: boolean;
}

/** How a virtual server presents one of its tools (a pick, `toolExecutor.ToolPick` without `tool`): absent fields are the tool's own. */
export interface ToolPresentation {
  /** The exposed name as written; absent: the catalog name. */
  name?: string;
  title?: string;
  description?: string;
  fixedArguments?: JsonObject;
  defaultArguments?: JsonObject;
  /** Scopes a caller needs for this exposure, besides the tool's own. */
  scopes?: string[];
}

/** A tool a virtual server exposes with a presentation of its own. */
export interface ToolPickEntry {
  /** The catalog tool's name. */
  tool: string;
  /** The name it has on the server (the presentation's `name`, else the catalog name). */
  name: string;
  presentation: ToolPresentation;
}

/** An upstream source whose every tool a virtual server exposes, but the hidden ones (catalog names). */
export interface ServerSourceEntry {
  sourceId: string;
  source: string;
  hidden: string[];
}

/** A stored virtual server with the tools it exposes. */
export interface CatalogVirtualServer extends VirtualServerDefinition {
  tenant: string;
  /** Tools exposed as they are (written as plain names), sorted. */
  toolNames: string[];
  /** Tools exposed with a presentation of their own, by exposed name; absent: none. */
  picks?: ToolPickEntry[];
  /** Upstream sources whose tools it exposes, by name; absent: none. */
  sources?: ServerSourceEntry[];
}

/** An upstream source as the catalog names it. */
export interface CatalogSourceRef {
  id: string;
  name: string;
}

/** Everything one tenant's catalog holds. */
export interface TenantCatalog {
  tenant: string;
  /** Nobody may use a disabled tenant's servers (absent: enabled). */
  disabled?: boolean;
  servers: CatalogVirtualServer[];
  tools: CatalogTool[];
  /** The tenant's upstream sources (what virtual servers' `sources` entries name); absent: none. */
  sources?: CatalogSourceRef[];
}

/** Default per-call timeout of a tool when its definition sets none (60 s). */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;
