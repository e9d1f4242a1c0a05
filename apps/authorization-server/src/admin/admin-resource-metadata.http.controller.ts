import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ADMIN_SCOPE } from '@mcp-platform/protocol-mcp';
import { ADMIN_API_PATH, ADMIN_API_SETTINGS, ADMIN_DOCS_PATH, type AdminApiSettings } from './admin.constants';

/**
 * The admin API's Protected Resource Metadata (RFC 9728): which authorization server issues its tokens
 * and with which scope, so an OAuth client can discover both from the 401 challenge's `resource_metadata`.
 */
@ApiExcludeController()
@Controller(`.well-known/oauth-protected-resource/${ADMIN_API_PATH}`)
export class AdminResourceMetadataHttpController {
  constructor(@Inject(ADMIN_API_SETTINGS) private readonly settings: AdminApiSettings) {}

  @Get()
  @Header('cache-control', 'public, max-age=3600')
  metadata() {
    return {
      resource: this.settings.audience,
      authorization_servers: [this.settings.issuer],
      scopes_supported: [ADMIN_SCOPE],
      bearer_methods_supported: ['header'],
      resource_name: 'MCP platform admin API',
      resource_documentation: `${this.settings.publicUrl}${ADMIN_DOCS_PATH}`,
    };
  }
}
