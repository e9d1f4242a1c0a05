/** The authorization server's feature module and its options, for the embedded host (`apps/standalone`). */
export { AuthorizationServerModule } from './authorization-server.module';
export { configureAuthorizationServerHttp, OAUTH_MOUNT, WELL_KNOWN_METADATA_PATHS } from './authorization-server.http';
export {
  resolveAuthorizationServerOptions,
  type AuthorizationServerOptions,
  type AuthorizationServerSeedOptions,
  type ResolvedAuthorizationServerOptions,
} from './authorization-server.options';
export { AUTHORIZATION_SERVER_CONNECTION, AUTHORIZATION_SERVER_OPTIONS } from './authorization-server.constants';
export { SigningKeysService } from './signing-keys/signing-keys.service';
export { DEMO_USERNAME } from './identity/seed/seed.service';
export { buildAdminOpenApiDocument, configureAdminOpenApi } from './admin/admin-openapi';
