import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { ADMIN_SCOPE } from '@mcp-platform/protocol-mcp';
import { ClientsService } from '../clients/clients.service';
import { ADMIN_API_SETTINGS, ADMIN_DOCS_PATH, type AdminApiSettings } from './admin.constants';

/** The client id of the admin API's Swagger UI (a public client of the platform, no tenant). */
export const ADMIN_DOCS_CLIENT_ID = 'admin-docs';

/** Where Swagger UI receives the authorization response: its own page, served under the docs path. */
export function adminDocsRedirectUri(settings: Pick<AdminApiSettings, 'publicUrl'>): string {
  return `${settings.publicUrl}${ADMIN_DOCS_PATH}/oauth2-redirect.html`;
}

/**
 * Registers the Swagger UI of `/admin/docs` as a public OAuth client of this authorization server at
 * every start (its redirect URI follows `AUTH_PUBLIC_URL`): authorization code with PKCE, the `admin`
 * scope only, redirecting only to Swagger UI's own `oauth2-redirect.html`. So an administrator gets an
 * admin token from the docs page itself (Authorize), signing in like anywhere else.
 */
@Injectable()
export class AdminDocsClient implements OnModuleInit {
  private readonly logger = new Logger(AdminDocsClient.name);

  constructor(
    private readonly clients: ClientsService,
    @Inject(ADMIN_API_SETTINGS) private readonly settings: AdminApiSettings,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.clients.saveRegistered(ADMIN_DOCS_CLIENT_ID, {
      client_name: 'Admin API docs (Swagger UI)',
      application_type: 'web',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: [adminDocsRedirectUri(this.settings)],
      token_endpoint_auth_method: 'none',
      scope: ADMIN_SCOPE,
    });
    this.logger.debug(`Swagger UI's OAuth client ${ADMIN_DOCS_CLIENT_ID} redirects to ${adminDocsRedirectUri(this.settings)}`);
  }
}
