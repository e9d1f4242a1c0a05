import { Module } from '@nestjs/common';
import { UploadRepository } from '../resources/upload.repository';
import { StoreRepository } from './store.repository';

/** The store's tables behind tenant-scoped repositories: the catalog, and the uploads in progress. */
@Module({ providers: [StoreRepository, UploadRepository], exports: [StoreRepository, UploadRepository] })
export class StoreModule {}
