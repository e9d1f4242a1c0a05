/** Environment validation: Zod fragments each app composes into its own schema, validated once at boot. */
export { ConfigError, loadEnv } from './load-env';
export { booleanFlag, commaList, httpEnv, httpServerSettings, logEnv, natsEnv, postgresEnv, trustProxyEnv, type HttpServerSettings } from './env.fragments';
