/** Environment validation: Zod fragments each app composes into its own schema, validated once at boot. */
export { ConfigError, loadEnv, StartupError, type LoadEnvOptions } from './load-env';
export { loadDotEnvFile } from './dot-env';
export {
  BOOTSTRAP_ADMIN_KEYS,
  booleanFlag,
  bootstrapAdminEnv,
  commaList,
  emptyAsUnset,
  httpEnv,
  httpServerSettings,
  logEnv,
  natsEnv,
  postgresEnv,
  trustProxyEnv,
  type HttpServerSettings,
} from './env.fragments';
