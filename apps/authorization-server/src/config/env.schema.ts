import { httpEnv, loadEnv, logEnv, natsEnv } from '@mcp-platform/shared-config';

/** The authorization server's environment (`.env.example` beside the app lists every key). */
export const authorizationServerEnv = {
  ...natsEnv,
  ...httpEnv(3101),
  ...logEnv,
};

export type AuthorizationServerEnv = ReturnType<typeof loadAuthorizationServerEnv>;

/** The one place this app reads `process.env`. */
export function loadAuthorizationServerEnv(env: Record<string, string | undefined> = process.env) {
  return loadEnv(authorizationServerEnv, env);
}
