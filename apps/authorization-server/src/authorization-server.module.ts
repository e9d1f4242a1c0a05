import { Module, type DynamicModule } from '@nestjs/common';

/**
 * The platform's OAuth 2.1 authorization server: tenants' users, OAuth clients (pre-registered, DCR,
 * Client ID Metadata Documents), grants and signing keys (DESIGN.md §3). Its features arrive with the
 * authorization issue; today it is a bootable service on the bus with health probes.
 */
@Module({})
export class AuthorizationServerModule {
  static register(): DynamicModule {
    return { module: AuthorizationServerModule };
  }
}
