import { Injectable, Module, type OnModuleDestroy } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AccessTokenVerifier } from '@mcp-platform/shared-auth';
import { IdSource, RandomIds } from '@mcp-platform/shared-clock';
import { AUTHORIZATION_SERVER_OPTIONS } from '../authorization-server.constants';
import type { ResolvedAuthorizationServerOptions } from '../authorization-server.options';
import { ClientsModule } from '../clients/clients.module';
import { IdentityModule } from '../identity/identity.module';
import { RevocationsModule } from '../revocations/revocations.module';
import { SigningKeysModule } from '../signing-keys/signing-keys.module';
import { SigningKeysService } from '../signing-keys/signing-keys.service';
import { ADMIN_API_SETTINGS, adminApiSettings } from './admin.constants';
import { AdminAuditInterceptor } from './admin-audit.interceptor';
import { AdminAuthGuard } from './admin-auth.guard';
import { AdminCreatedStatusInterceptor } from './admin-created-status.interceptor';
import { AdminDocsClient } from './admin-docs-client';
import { AdminExceptionFilter } from './admin-exception.filter';
import { AdminNoStoreInterceptor } from './admin-no-store.interceptor';
import { AdminRawUploadParsing } from './admin-raw-upload';
import { AdminResourceMetadataHttpController } from './admin-resource-metadata.http.controller';
import { AdminRoutesExceptionFilter } from './admin-routes-exception.filter';
import { AdminSubjects, UsersAdminSubjects } from './admin-subjects.service';
import { CatalogAdminService } from './catalog-admin.service';
import { ClientsHttpController } from './clients.http.controller';
import { ClientsAdminService } from './clients-admin.service';
import { IdentityAdminService } from './identity-admin.service';
import { PromptsHttpController } from './prompts.http.controller';
import { ResourceAdminService } from './resource-admin.service';
import { ResourceTemplatesHttpController } from './resource-templates.http.controller';
import { ResourcesHttpController } from './resources.http.controller';
import { RolesHttpController } from './roles.http.controller';
import { SkillAdminService } from './skill-admin.service';
import { SkillsHttpController } from './skills.http.controller';
import { StdioServersHttpController } from './stdio-servers.http.controller';
import { TaskAdminService } from './task-admin.service';
import { TasksHttpController } from './tasks.http.controller';
import { TenantsHttpController } from './tenants.http.controller';
import { ToolsHttpController } from './tools.http.controller';
import { UpstreamAdminService } from './upstream-admin.service';
import { UpstreamsHttpController } from './upstreams.http.controller';
import { UsersHttpController } from './users.http.controller';
import { VirtualServersHttpController } from './virtual-servers.http.controller';

/**
 * The admin API verifies tokens in the process that signs them: its key source is the signing keys
 * service itself, not the bus. A key it does not know yet is looked up again at most once a second
 * (the lookup is local and cheap), and a rotation drops the cached set at once.
 */
const LOCAL_KEY_REFRESH_INTERVAL_MS = 1_000;

@Injectable()
class VerifierKeyInvalidation implements OnModuleDestroy {
  private readonly unsubscribe: () => void;

  constructor(signingKeys: SigningKeysService, verifier: AccessTokenVerifier) {
    this.unsubscribe = signingKeys.onRotated(() => verifier.invalidateKeys());
  }

  onModuleDestroy(): void {
    this.unsubscribe();
  }
}

/**
 * The admin REST API under `/admin/v1` (issue 3 §4): tenants, users, roles and OAuth clients of the
 * authorization server, each tenant's tool catalog and virtual servers through the tool executor's
 * catalog administration RPCs, its upstream MCP servers through the executor's upstream ones, its resources, resource templates and prompts through the resource
 * store's, and its MCP tasks through the task scheduler's. Every route needs an admin access token (`AdminAuthGuard`);
 * the OpenAPI document is served by `configureAdminOpenApi`.
 */
@Module({
  imports: [IdentityModule, SigningKeysModule, ClientsModule, RevocationsModule],
  controllers: [
    TenantsHttpController,
    UsersHttpController,
    RolesHttpController,
    ClientsHttpController,
    VirtualServersHttpController,
    ToolsHttpController,
    UpstreamsHttpController,
    StdioServersHttpController,
    ResourcesHttpController,
    ResourceTemplatesHttpController,
    PromptsHttpController,
    SkillsHttpController,
    TasksHttpController,
    AdminResourceMetadataHttpController,
  ],
  providers: [
    {
      provide: ADMIN_API_SETTINGS,
      inject: [AUTHORIZATION_SERVER_OPTIONS],
      useFactory: (options: ResolvedAuthorizationServerOptions) => adminApiSettings(options),
    },
    {
      provide: AccessTokenVerifier,
      inject: [SigningKeysService],
      useFactory: (signingKeys: SigningKeysService) =>
        new AccessTokenVerifier({ keySource: () => signingKeys.signingKeySet(), minRefreshIntervalMs: LOCAL_KEY_REFRESH_INTERVAL_MS }),
    },
    VerifierKeyInvalidation,
    AdminDocsClient,
    { provide: AdminSubjects, useClass: UsersAdminSubjects },
    AdminAuthGuard,
    AdminAuditInterceptor,
    AdminNoStoreInterceptor,
    AdminCreatedStatusInterceptor,
    { provide: IdSource, useClass: RandomIds },
    AdminExceptionFilter,
    { provide: APP_FILTER, useClass: AdminRoutesExceptionFilter },
    AdminRawUploadParsing,
    CatalogAdminService,
    UpstreamAdminService,
    ResourceAdminService,
    SkillAdminService,
    TaskAdminService,
    IdentityAdminService,
    ClientsAdminService,
  ],
})
export class AdminModule {}
