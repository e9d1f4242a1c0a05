/** The authorization server's feature module, for the embedded host (`apps/standalone`). */
export { AuthorizationServerModule } from './authorization-server.module';
