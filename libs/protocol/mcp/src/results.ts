import { DiscoverResultSchema, ListToolsResultSchema } from '@modelcontextprotocol/core';
import { z } from 'zod';

/**
 * Modern `resultType` (S-6): `complete` for final results, `input_required` for MRTR interim
 * results; negotiated extensions may add more (the Tasks extension adds `task`), hence open.
 */
export const ResultType = {
  Complete: 'complete',
  InputRequired: 'input_required',
} as const;
export const ResultTypeSchema = z.union([z.enum([ResultType.Complete, ResultType.InputRequired]), z.string().min(1)]);
export type ResultType = z.infer<typeof ResultTypeSchema>;

/** `cacheScope` (S-248): `public` results carry no user-specific data; `private` ones stay within one authorization context. */
export const CacheScopeSchema = z.enum(['public', 'private']);
export type CacheScope = z.infer<typeof CacheScopeSchema>;

/**
 * Caching hints every `complete` result of a cacheable method carries in the modern era (S-246):
 * `server/discover`, the list methods and `resources/read`.
 */
export const CacheableResultFieldsSchema = z.object({
  /** Freshness in milliseconds, like `max-age`; 0 = stale at once (S-247). */
  ttlMs: z.number().int().nonnegative(),
  cacheScope: CacheScopeSchema,
});
export type CacheableResultFields = z.infer<typeof CacheableResultFieldsSchema>;

/** The modern `server/discover` result (S-53): core's shape plus `resultType` and the caching hints. */
export const ModernDiscoverResultSchema = DiscoverResultSchema.extend({
  resultType: ResultTypeSchema,
  ...CacheableResultFieldsSchema.shape,
});
export type ModernDiscoverResult = z.infer<typeof ModernDiscoverResultSchema>;

/** The modern `tools/list` result: core's shape plus `resultType` and the caching hints. */
export const ModernListToolsResultSchema = ListToolsResultSchema.extend({
  resultType: ResultTypeSchema,
  ...CacheableResultFieldsSchema.shape,
});
export type ModernListToolsResult = z.infer<typeof ModernListToolsResultSchema>;
