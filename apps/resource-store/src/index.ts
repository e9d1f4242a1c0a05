/** The resource store's feature module, for the embedded host (`apps/standalone`). */
export { RESOURCE_STORE_CONNECTION } from './resource-store.constants';
export { ResourceStoreModule } from './resource-store.module';
export type { ResourceStoreOptions } from './resource-store.options';
