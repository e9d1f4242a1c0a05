/** Environment validation: Zod fragments each app composes into its own schema, validated once at boot. */
export { ConfigError, loadEnv } from './load-env';
export { booleanFlag, commaList, httpEnv, logEnv, natsEnv, postgresEnv } from './env.fragments';
