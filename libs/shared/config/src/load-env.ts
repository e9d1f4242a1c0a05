import { z } from 'zod';

/** Boot fails with every bad key listed at once (STYLE.md §6). */
export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`invalid configuration:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses an environment against a schema built from the fragments below. */
export function loadEnv<S extends z.ZodRawShape>(shape: S, env: Record<string, string | undefined>): z.output<z.ZodObject<S>> {
  const parsed = z.object(shape).safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`));
  }
  return parsed.data;
}
