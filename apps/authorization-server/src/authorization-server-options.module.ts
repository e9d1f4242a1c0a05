import { type DynamicModule, Module } from '@nestjs/common';
import { AUTHORIZATION_SERVER_OPTIONS } from './authorization-server.constants';
import type { ResolvedAuthorizationServerOptions } from './authorization-server.options';

/**
 * Provides `AUTHORIZATION_SERVER_OPTIONS` to every module of the app (global, so feature modules such
 * as the OAuth provider and the admin API inject it without importing anything). The token is this
 * app's own, so being global cannot clash with the other apps of the embedded host.
 */
@Module({})
export class AuthorizationServerOptionsModule {
  static forRoot(options: ResolvedAuthorizationServerOptions): DynamicModule {
    return {
      module: AuthorizationServerOptionsModule,
      global: true,
      providers: [{ provide: AUTHORIZATION_SERVER_OPTIONS, useValue: options }],
      exports: [AUTHORIZATION_SERVER_OPTIONS],
    };
  }
}
