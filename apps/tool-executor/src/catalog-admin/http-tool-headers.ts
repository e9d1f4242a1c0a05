import type { toolExecutor } from '@mcp-platform/protocol-contracts';
import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import type { HttpToolConfig } from '../catalog/catalog.types';

/** An HTTP tool's headers as an administrator writes them: a value sets, `null` removes, `{ set: true }` keeps. */
export type HeaderWrites = NonNullable<Extract<toolExecutor.ToolDefinitionRecord, { kind: 'http' }>['config']['headers']>;

/**
 * The headers to store for an HTTP tool, from what the administrator wrote and what is stored
 * (issue 13 item 7: values are write-only, so an update cannot require them all again). Names are
 * case-insensitive and stored in lowercase. A header named with a value is set, named with `null`
 * removed, named with `{ set: true }` or not named at all kept as stored. When the URL moves to
 * another origin, no stored value goes along (it would hand the secret to whoever answers there):
 * each kept header must then be sent again or removed. `INVALID_PARAMS` names what is wrong, never a value.
 */
export function mergeHttpHeaders(written: HeaderWrites | undefined, url: string, stored: HttpToolConfig | undefined): Record<string, string> | undefined {
  const merged = new Map(Object.entries(stored?.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  const sent = new Set<string>();
  const seen = new Set<string>();
  for (const [rawName, value] of Object.entries(written ?? {})) {
    const name = rawName.toLowerCase();
    if (seen.has(name)) throw invalid(`header ${name} is named twice (header names are case-insensitive)`);
    seen.add(name);
    if (value === null) {
      merged.delete(name);
    } else if (typeof value === 'string') {
      merged.set(name, value);
      sent.add(name);
    } else if (!merged.has(name)) {
      throw invalid(`header ${name} has no stored value to keep: send its value`);
    }
  }
  if (stored && originOf(stored.url) !== originOf(url)) {
    const carried = [...merged.keys()].filter((name) => !sent.has(name)).sort();
    if (carried.length) {
      throw invalid(
        `the URL moves to another origin (${originOf(url)}), and stored header values are not sent to another origin: send ${carried.join(', ')} again, or remove them with null`,
      );
    }
  }
  return merged.size ? Object.fromEntries([...merged.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) : undefined;
}

/** A stored tool's headers as every answer shows them: each one set, none with its value. */
export function headersAsSet(headers: Record<string, string> | undefined): Record<string, { set: true }> | undefined {
  return headers === undefined ? undefined : Object.fromEntries(Object.keys(headers).map((name) => [name, { set: true as const }]));
}

function originOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : url;
}

function invalid(message: string): RpcError {
  return new RpcError(WireErrorCode.InvalidParams, message);
}
