import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import type { WriteOutcome } from './rows';

/** What a write did: created, replaced, or nothing (the stored one was identical). */
export type PutOutcome = WriteOutcome | 'unchanged';

/** Validates a definition; what is wrong is `INVALID_PARAMS` with Zod's issues. */
export function parseDefinition<T>(
  schema: { safeParse(input: unknown): { success: true; data: T } | { success: false; error: { issues: unknown[] } } },
  input: unknown,
): T {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new RpcError(WireErrorCode.InvalidParams, 'Invalid definition', { issues: parsed.error.issues });
  return parsed.data;
}

/** Servers whose list changed: old and new exposure together; `[]` (every server) when either was. */
export function touchedServers(before: string[] | undefined, after: string[]): string[] {
  if (after.length === 0 || (before !== undefined && before.length === 0)) return [];
  return [...new Set([...(before ?? []), ...after])].sort();
}

/** Deep equality of two definitions as JSON (key order and `undefined` members ignored). */
export function sameJson(left: object, right: object): boolean {
  return JSON.stringify(sortKeys(left)) === JSON.stringify(sortKeys(right));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, entry]) => entry !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, entry]) => [key, sortKeys(entry)]),
    );
  }
  return value;
}
