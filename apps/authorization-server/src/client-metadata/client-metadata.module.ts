import { Module } from '@nestjs/common';
import { ClientMetadataFetcher, GuardedClientMetadataFetcher } from './client-metadata.fetcher';
import { ClientMetadataClock, ClientMetadataService, SystemClientMetadataClock } from './client-metadata.service';

/** Client ID Metadata Documents: fetched through the SSRF guard, validated and cached. */
@Module({
  providers: [{ provide: ClientMetadataFetcher, useClass: GuardedClientMetadataFetcher }, { provide: ClientMetadataClock, useClass: SystemClientMetadataClock }, ClientMetadataService],
  exports: [ClientMetadataService],
})
export class ClientMetadataModule {}
