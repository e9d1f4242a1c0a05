import { Module } from '@nestjs/common';
import { Clock, IdSource, RandomIds, SystemClock } from '@mcp-platform/shared-clock';
import { ClientMetadataFetcher, GuardedClientMetadataFetcher } from './client-metadata.fetcher';
import { ClientMetadataService } from './client-metadata.service';

/** Client ID Metadata Documents: fetched through the SSRF guard, validated and cached. */
@Module({
  providers: [
    { provide: ClientMetadataFetcher, useClass: GuardedClientMetadataFetcher },
    { provide: Clock, useClass: SystemClock },
    { provide: IdSource, useClass: RandomIds },
    ClientMetadataService,
  ],
  exports: [ClientMetadataService],
})
export class ClientMetadataModule {}
