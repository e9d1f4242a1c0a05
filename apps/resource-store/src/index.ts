/** The resource store's feature module, for the embedded host (`apps/standalone`). */
export { ResourceStoreModule } from './resource-store.module';
