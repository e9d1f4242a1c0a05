import { Module } from '@nestjs/common';
import { ClientMetadataClock, ClientMetadataService, SystemClientMetadataClock } from '../client-metadata/client-metadata.service';
import { ClientMetadataFetcher, GuardedClientMetadataFetcher } from '../client-metadata/client-metadata.fetcher';
import { ClientsRepository } from '../clients/clients.repository';
import { ClientsService } from '../clients/clients.service';
import { Clock, SystemClock } from '../identity/clock';
import { IdentityModule } from '../identity/identity.module';
import { InteractionsService } from '../interactions/interactions.service';
import { PasswordSignIn } from '../interactions/password-sign-in';
import { SignInAttemptsRepository } from '../interactions/sign-in-attempts.repository';
import { SignInThrottle } from '../interactions/sign-in.throttle';
import { RevocationsModule } from '../revocations/revocations.module';
import { SigningKeysModule } from '../signing-keys/signing-keys.module';
import { AuthorizationPolicy } from './authorization-policy.service';
import { OAuthProviderService } from './oauth-provider.service';
import { OAuthSecretsRepository } from './oauth-secrets.repository';
import { OAuthSecretsService } from './oauth-secrets.service';
import { OidcRecordsCleaner } from './oidc-records.cleaner';
import { OidcRecordsRepository } from './oidc-records.repository';
import { RegistrationThrottle } from './registration.throttle';
import { ResourceServersService } from './resource-servers.service';

/**
 * The OAuth 2.1 machinery on oidc-provider: the provider and its storage, OAuth clients (pre-registered,
 * DCR, Client ID Metadata Documents), resource indicators, and the sign-in and consent steps. Its HTTP
 * edge is mounted by `configureAuthorizationServerHttp`. Needs the app's connection, its options and
 * `MessageBus` (virtual servers are looked up in the tool executor).
 */
@Module({
  imports: [IdentityModule, SigningKeysModule, RevocationsModule],
  providers: [
    OidcRecordsRepository,
    OidcRecordsCleaner,
    OAuthSecretsRepository,
    OAuthSecretsService,
    ResourceServersService,
    AuthorizationPolicy,
    ClientsRepository,
    ClientsService,
    { provide: ClientMetadataFetcher, useClass: GuardedClientMetadataFetcher },
    { provide: ClientMetadataClock, useClass: SystemClientMetadataClock },
    ClientMetadataService,
    OAuthProviderService,
    PasswordSignIn,
    { provide: Clock, useClass: SystemClock },
    SignInAttemptsRepository,
    SignInThrottle,
    RegistrationThrottle,
    InteractionsService,
  ],
  exports: [ClientsService, OAuthProviderService, InteractionsService, ResourceServersService, RegistrationThrottle],
})
export class OAuthModule {}
