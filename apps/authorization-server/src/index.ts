/** The authorization server's feature module and its options, for the embedded host (`apps/standalone`). */
export { buildAdminOpenApiDocument, configureAdminOpenApi } from './admin/admin-openapi';
export { AUTHORIZATION_SERVER_CONNECTION, AUTHORIZATION_SERVER_OPTIONS } from './authorization-server.constants';
export { configureAuthorizationServerHttp, OAUTH_MOUNT, WELL_KNOWN_METADATA_PATHS } from './authorization-server.http';
export { AuthorizationServerModule } from './authorization-server.module';
export {
  type AuthorizationServerOptions,
  type AuthorizationServerSeedOptions,
  resolveAuthorizationServerOptions,
  type ResolvedAuthorizationServerOptions,
} from './authorization-server.options';
export { DEMO_USERNAME } from './identity/seed/seed.service';
export { SigningKeysService } from './signing-keys/signing-keys.service';
