import { type DynamicModule, Module } from '@nestjs/common';
import { PersistenceModule } from '@mcp-platform/shared-persistence';
import { AdminModule } from './admin/admin.module';
import { AUTHORIZATION_SERVER_CONNECTION, AUTHORIZATION_SERVER_SCHEMA } from './authorization-server.constants';
import { AUTHORIZATION_SERVER_ENTITIES, AUTHORIZATION_SERVER_MIGRATIONS } from './authorization-server.entities';
import { type AuthorizationServerOptions, resolveAuthorizationServerOptions } from './authorization-server.options';
import { AuthorizationServerOptionsModule } from './authorization-server-options.module';
import { IdentityModule } from './identity/identity.module';
import { InteractionsModule } from './interactions/interactions.module';
import { OAuthModule } from './oauth/oauth.module';
import { SigningKeysModule } from './signing-keys/signing-keys.module';

/**
 * The platform's OAuth 2.1 authorization server: tenants, their users and roles, signing keys, OAuth
 * clients and grants (DESIGN.md §3). Transport-agnostic: the app's own process (`AppModule`) and the
 * embedded host (`apps/standalone`) both import it. Needs `MessagingModule` from its host.
 */
@Module({})
export class AuthorizationServerModule {
  static register(options: AuthorizationServerOptions): DynamicModule {
    const resolved = resolveAuthorizationServerOptions(options);
    return {
      module: AuthorizationServerModule,
      imports: [
        AuthorizationServerOptionsModule.forRoot(resolved),
        PersistenceModule.forApp({
          name: AUTHORIZATION_SERVER_CONNECTION,
          schema: AUTHORIZATION_SERVER_SCHEMA,
          database: resolved.database,
          entities: AUTHORIZATION_SERVER_ENTITIES,
          migrations: AUTHORIZATION_SERVER_MIGRATIONS,
          applicationName: 'authorization-server',
        }),
        IdentityModule,
        SigningKeysModule,
        OAuthModule,
        InteractionsModule,
        AdminModule,
      ],
      exports: [AuthorizationServerOptionsModule, IdentityModule, SigningKeysModule],
    };
  }
}
