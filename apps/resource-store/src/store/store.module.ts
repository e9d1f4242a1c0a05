import { Module } from '@nestjs/common';
import { StoreRepository } from './store.repository';
import { UploadRepository } from './upload.repository';

/** The store's tables behind tenant-scoped repositories: the catalog, and the uploads in progress. */
@Module({ providers: [StoreRepository, UploadRepository], exports: [StoreRepository, UploadRepository] })
export class StoreModule {}
