/** Environment validation: Zod fragments each app composes into its own schema, validated once at boot. */
export { loadDotEnvFile } from './dot-env';
export {
  booleanFlag,
  BOOTSTRAP_ADMIN_KEYS,
  bootstrapAdminEnv,
  commaList,
  emptyAsUnset,
  httpEnv,
  type HttpServerSettings,
  httpServerSettings,
  logEnv,
  natsEnv,
  postgresEnv,
  trustProxyEnv,
} from './env.fragments';
export { ConfigError, loadEnv, type LoadEnvOptions, StartupError } from './load-env';
