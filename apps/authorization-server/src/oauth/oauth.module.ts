import { Module } from '@nestjs/common';
import { ClientMetadataModule } from '../client-metadata/client-metadata.module';
import { ClientsModule } from '../clients/clients.module';
import { IdentityModule } from '../identity/identity.module';
import { OidcRecordsModule } from '../oidc-records/oidc-records.module';
import { RevocationsModule } from '../revocations/revocations.module';
import { SigningKeysModule } from '../signing-keys/signing-keys.module';
import { ThrottlingModule } from '../throttling/throttling.module';
import { AuthorizationPolicy } from './authorization-policy.service';
import { OAuthProviderService } from './oauth-provider.service';
import { OAuthSecretsRepository } from './oauth-secrets.repository';
import { OAuthSecretsService } from './oauth-secrets.service';
import { ResourceServersService } from './resource-servers.service';

/**
 * The OAuth 2.1 machinery on oidc-provider: the provider over its records, resource indicators, the
 * authorization policy and the provider's secrets. Clients come from `ClientsModule` and Client ID
 * Metadata Documents, users and roles from identity. Its HTTP edge is mounted by
 * `configureAuthorizationServerHttp`. Needs the app's connection, its options and `MessageBus`
 * (virtual servers are looked up in the tool executor).
 */
@Module({
  imports: [IdentityModule, SigningKeysModule, RevocationsModule, ClientsModule, ClientMetadataModule, OidcRecordsModule, ThrottlingModule],
  providers: [OAuthSecretsRepository, OAuthSecretsService, ResourceServersService, AuthorizationPolicy, OAuthProviderService],
  exports: [OAuthProviderService, OAuthSecretsService, ResourceServersService, AuthorizationPolicy, ThrottlingModule],
})
export class OAuthModule {}
