import { Module } from '@nestjs/common';
import { OidcRecordsCleaner } from './oidc-records.cleaner';
import { OidcRecordsRepository } from './oidc-records.repository';

/**
 * What oidc-provider stores (grants, codes, refresh tokens, sessions, interactions): one table behind
 * the provider's adapter, cleaned of expired rows periodically. The OAuth provider reads and writes it;
 * deleting a client deletes its records.
 */
@Module({
  providers: [OidcRecordsRepository, OidcRecordsCleaner],
  exports: [OidcRecordsRepository],
})
export class OidcRecordsModule {}
