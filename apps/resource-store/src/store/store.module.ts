import { Module } from '@nestjs/common';
import { StoreRepository } from './store.repository';

/** The store's tables behind one tenant-scoped repository. */
@Module({ providers: [StoreRepository], exports: [StoreRepository] })
export class StoreModule {}
