import type { IncomingHttpHeaders } from 'node:http';

/** Marks a POST body that was not valid JSON (answered `-32700` after the edge checks). */
export const UNPARSEABLE_BODY: unique symbol = Symbol('unparseable body');

/** One HTTP request to a virtual server's MCP endpoint, after the body was parsed (once). */
export interface McpHttpRequest {
  method: string;
  tenant: string;
  server: string;
  headers: IncomingHttpHeaders;
  /** The parsed query string (only `access_token` is looked at: it is refused, S-138). */
  query?: Readonly<Record<string, unknown>>;
  /** The parsed JSON body, `UNPARSEABLE_BODY`, or `undefined` when there was none. */
  body?: unknown;
  /** The client's address as the HTTP server sees it (behind a trusted proxy, the forwarded one; see `TRUST_PROXY`). */
  clientAddress?: string;
}

/** A header's single value (a repeated header yields its first value). */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
