import type { CompletionSource } from '../store/store.types';

/** At most this many values per answer (S-227). */
export const MAX_COMPLETION_VALUES = 100;

/** One `completion/complete` answer. */
export type Completion = { values: string[]; total: number; hasMore: boolean };

/**
 * Completes `prefix` from a source (S-226..S-228): the candidates are the plain list, or for a source
 * that depends on an earlier argument, the list for that argument's value in `context` (every list
 * when the context does not say). Matching is a case-insensitive prefix match, exact-case matches
 * first, then in the configured order; duplicates are dropped.
 */
export function completeFrom(source: CompletionSource | undefined, prefix: string, context: Record<string, string> = {}): Completion {
  const candidates = [...new Set(candidatesOf(source, context))];
  const lowered = prefix.toLowerCase();
  const matches = candidates.filter((value) => value.toLowerCase().startsWith(lowered));
  const ranked = [...matches.filter((value) => value.startsWith(prefix)), ...matches.filter((value) => !value.startsWith(prefix))];
  return { values: ranked.slice(0, MAX_COMPLETION_VALUES), total: ranked.length, hasMore: ranked.length > MAX_COMPLETION_VALUES };
}

function candidatesOf(source: CompletionSource | undefined, context: Record<string, string>): string[] {
  if (!source) return [];
  if (Array.isArray(source)) return source;
  const chosen = context[source.dependsOn];
  if (chosen !== undefined) return source.byValue[chosen] ?? [];
  return Object.values(source.byValue).flat();
}
