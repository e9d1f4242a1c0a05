import type { CompletionSource } from '../store/store.types';

/** At most this many values per answer (S-227). */
export const MAX_COMPLETION_VALUES = 100;

/** One `completion/complete` answer; `total` is left out when it is not known (S-227: optional). */
export type Completion = { values: string[]; total?: number; hasMore: boolean };

/**
 * Completes `prefix` from a source (S-226..S-228): the candidates are the plain list, or for a source
 * that depends on an earlier argument, the list for that argument's value in `context` (every list
 * when the context does not say). Matching is a case-insensitive prefix match, exact-case matches
 * first, then in the configured order; duplicates are dropped.
 */
export function completeFrom(source: CompletionSource | undefined, prefix: string, context: Record<string, string> = {}): Completion {
  return rankCompletions(configuredCandidates(source, context), prefix);
}

/**
 * Completes `prefix` from `candidates` as {@link completeFrom} does: duplicates dropped (the first
 * occurrence keeps its place), case-insensitive prefix match, exact-case matches first. When the
 * candidates are not all there are (`exhaustive: false`, e.g. a capped scan of the store), the total
 * is unknown: it is left out and `hasMore` is true, so the client narrows by typing more.
 */
export function rankCompletions(candidates: readonly string[], prefix: string, { exhaustive = true }: { exhaustive?: boolean } = {}): Completion {
  const lowered = prefix.toLowerCase();
  const matches = [...new Set(candidates)].filter((value) => value.toLowerCase().startsWith(lowered));
  const ranked = [...matches.filter((value) => value.startsWith(prefix)), ...matches.filter((value) => !value.startsWith(prefix))];
  const values = ranked.slice(0, MAX_COMPLETION_VALUES);
  if (!exhaustive) return { values, hasMore: true };
  return { values, total: ranked.length, hasMore: ranked.length > MAX_COMPLETION_VALUES };
}

/** The configured candidates of a source, in configured order: the list for the context's value of the argument it depends on, else every list. */
export function configuredCandidates(source: CompletionSource | undefined, context: Record<string, string> = {}): string[] {
  if (!source) return [];
  if (Array.isArray(source)) return source;
  const chosen = context[source.dependsOn];
  if (chosen !== undefined) return source.byValue[chosen] ?? [];
  return Object.values(source.byValue).flat();
}
