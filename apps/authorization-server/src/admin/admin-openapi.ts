import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { ADMIN_SCOPE } from '@mcp-platform/protocol-mcp';
import { ADMIN_SECURITY_SCHEME } from './admin-openapi.decorators';
import { ADMIN_API_SETTINGS, ADMIN_DOCS_PATH, ADMIN_OPENAPI_JSON_PATH, type AdminApiSettings } from './admin.constants';
import { AdminModule } from './admin.module';

const DESCRIPTION = [
  "Administers the platform: tenants, their users, roles and OAuth clients, their tool catalog and the virtual servers that expose it, their resources and prompts, and their MCP tasks.",
  '',
  `Every route needs \`Authorization: Bearer <access token>\`: a JWT issued by this authorization server for the resource (audience) \`<this origin>/admin/v1\` with the \`${ADMIN_SCOPE}\` scope.`,
  'A platform administrator (role `platform-admin`) may do everything; a tenant administrator (role `tenant-admin`) only what is under `/admin/v1/tenants/{its tenant}`.',
  'Errors answer `{ "error": { "code", "message" } }`.',
].join('\n');

/**
 * The admin API's OpenAPI 3.1 document, built from the admin controllers only: their routes, the Zod
 * schemas their parameters and bodies are validated with, their answers and errors, and the bearer
 * security scheme.
 */
export function buildAdminOpenApiDocument(app: INestApplication): OpenAPIObject {
  const settings = app.get<AdminApiSettings>(ADMIN_API_SETTINGS);
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('MCP platform admin API')
    .setDescription(DESCRIPTION)
    .setVersion('1')
    .addServer(settings.publicUrl)
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: `An access token of ${settings.issuer} for ${settings.audience}, scope \`${ADMIN_SCOPE}\`` },
      ADMIN_SECURITY_SCHEME,
    )
    .build();
  return SwaggerModule.createDocument(app, config, { include: [AdminModule] });
}

/**
 * Serves the admin API's OpenAPI document at `/admin/openapi.json` and the Swagger UI at
 * `/admin/docs` (its assets from the installed swagger-ui-dist, nothing from a CDN). Hosts call it
 * after creating the app and before `init()`, like the broker's HTTP setup.
 */
export function configureAdminOpenApi(app: INestApplication): void {
  SwaggerModule.setup(ADMIN_DOCS_PATH, app, () => buildAdminOpenApiDocument(app), {
    jsonDocumentUrl: ADMIN_OPENAPI_JSON_PATH,
    raw: ['json'],
    customSiteTitle: 'MCP platform admin API',
    swaggerOptions: { persistAuthorization: false },
  });
}
