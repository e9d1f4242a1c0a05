import { Module } from '@nestjs/common';
import { Clock, SystemClock } from '@mcp-platform/shared-clock';
import { ClientMetadataModule } from '../client-metadata/client-metadata.module';
import { ClientsModule } from '../clients/clients.module';
import { IdentityModule } from '../identity/identity.module';
import { OAuthModule } from '../oauth/oauth.module';
import { ThrottlingModule } from '../throttling/throttling.module';
import { InteractionsService } from './interactions.service';
import { PasswordSignIn } from './password-sign-in';

/**
 * The sign-in and consent steps of an authorization request (oidc-provider's interactions), with
 * passport's local strategy for the password. Its pages are mounted by `configureAuthorizationServerHttp`.
 */
@Module({
  imports: [OAuthModule, ClientsModule, ClientMetadataModule, IdentityModule, ThrottlingModule],
  providers: [PasswordSignIn, InteractionsService, { provide: Clock, useClass: SystemClock }],
  exports: [InteractionsService],
})
export class InteractionsModule {}
