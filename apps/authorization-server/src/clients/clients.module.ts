import { Module } from '@nestjs/common';
import { IdSource, RandomIds } from '@mcp-platform/shared-clock';
import { IdentityModule } from '../identity/identity.module';
import { OidcRecordsModule } from '../oidc-records/oidc-records.module';
import { RevocationsModule } from '../revocations/revocations.module';
import { ClientsRepository } from './clients.repository';
import { ClientsService } from './clients.service';

/**
 * OAuth clients: pre-registered by tenant administrators and dynamically registered ones, their table
 * and the rules their metadata obeys. Deleting one revokes what it was granted (the OAuth records).
 */
@Module({
  imports: [IdentityModule, RevocationsModule, OidcRecordsModule],
  providers: [ClientsRepository, ClientsService, { provide: IdSource, useClass: RandomIds }],
  exports: [ClientsService],
})
export class ClientsModule {}
