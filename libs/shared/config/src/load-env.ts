import { z } from 'zod';

/**
 * A start that cannot succeed for a reason the operator fixes (a bad key, a data directory in use):
 * its message says what to do, and the process prints it alone, without a stack, and exits 1.
 */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

/** Boot fails with every bad key listed at once (STYLE.md §6). */
export class ConfigError extends StartupError {
  constructor(readonly issues: string[]) {
    super(`invalid configuration:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** What `loadEnv` checks beyond each key on its own. */
export interface LoadEnvOptions {
  /**
   * Groups of keys that are set together or not at all (e.g. a username and its password): one set
   * without the others is a bad configuration, not a silently ignored one. Empty values count as unset.
   */
  together?: readonly (readonly string[])[];
}

/** Parses an environment against a schema built from the fragments below; every problem in one `ConfigError`. */
export function loadEnv<S extends z.ZodRawShape>(shape: S, env: Record<string, string | undefined>, options: LoadEnvOptions = {}): z.output<z.ZodObject<S>> {
  const parsed = z.object(shape).safeParse(env);
  const issues = parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  for (const group of options.together ?? []) {
    const set = group.filter((key) => env[key] !== undefined && env[key] !== '');
    if (set.length > 0 && set.length < group.length) {
      issues.push(`${group.join(', ')}: set ${group.length === 2 ? 'both or neither' : 'all or none'} (only ${set.join(', ')} is set)`);
    }
  }
  if (!parsed.success || issues.length > 0) throw new ConfigError(issues);
  return parsed.data;
}
