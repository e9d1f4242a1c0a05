import { httpEnv, loadEnv, logEnv, natsEnv } from '@mcp-platform/shared-config';

/** The resource store's environment (`.env.example` beside the app lists every key). */
export const resourceStoreEnv = {
  ...natsEnv,
  ...httpEnv(3103),
  ...logEnv,
};

export type ResourceStoreEnv = ReturnType<typeof loadResourceStoreEnv>;

/** The one place this app reads `process.env`. */
export function loadResourceStoreEnv(env: Record<string, string | undefined> = process.env) {
  return loadEnv(resourceStoreEnv, env);
}
