import type { ClientCapabilitiesSchema } from '@modelcontextprotocol/core';
import type { z } from 'zod';
import { isPlainObject } from './plain-object';

/** What a client declares it supports (legacy: in `initialize`; modern: on every request, S-32). */
export type ClientCapabilities = z.infer<typeof ClientCapabilitiesSchema>;

/**
 * The part of `required` that `declared` lacks, or `undefined` when nothing is missing. A capability
 * counts as declared when its key is present (with an object value) at every level `required` names;
 * the result is the body of `-32021`'s `data.requiredCapabilities` (S-38).
 */
export function missingClientCapabilities(
  required: Record<string, unknown>,
  declared: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  let missing: Record<string, unknown> | undefined;
  for (const [name, need] of Object.entries(required)) {
    const have = declared && Object.hasOwn(declared, name) ? declared[name] : undefined;
    if (have === undefined || have === null) {
      (missing ??= {})[name] = need;
      continue;
    }
    if (isPlainObject(need) && Object.keys(need).length > 0) {
      const nested = missingClientCapabilities(need, isPlainObject(have) ? have : undefined);
      if (nested) (missing ??= {})[name] = nested;
    }
  }
  return missing;
}
