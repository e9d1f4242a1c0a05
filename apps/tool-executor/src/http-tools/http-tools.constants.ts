/** Injection token of `HttpToolOptions`. */
export const HTTP_TOOL_OPTIONS = 'HTTP_TOOL_OPTIONS';

/** How HTTP tools may reach out. */
export interface HttpToolOptions {
  allowPrivateNetworks: boolean;
  /** Upper bound of one request, whatever the tool's own setting. */
  timeoutMs: number;
  /** Largest answer body read (default 1 MiB). */
  maxResponseBytes: number;
}

export const DEFAULT_HTTP_TOOL_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
