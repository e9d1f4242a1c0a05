/** The named TypeORM connection of this app (several apps share one process in embedded mode). */
export const AUTHORIZATION_SERVER_CONNECTION = 'authorization-server';

/** The app's own Postgres schema (DESIGN.md §3: nobody reads another app's tables). */
export const AUTHORIZATION_SERVER_SCHEMA = 'authorization_server';

/** Injection token of the app's `ResolvedAuthorizationServerOptions` (every default applied). */
export const AUTHORIZATION_SERVER_OPTIONS = Symbol('AUTHORIZATION_SERVER_OPTIONS');
