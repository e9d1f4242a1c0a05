import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ADMIN_SCOPE } from '@mcp-platform/protocol-mcp';
import { ADMIN_API_SETTINGS, ADMIN_DOCS_PATH, ADMIN_OPENAPI_JSON_PATH, type AdminApiSettings } from './admin.constants';
import { AdminModule } from './admin.module';
import { ADMIN_DOCS_CLIENT_ID, adminDocsRedirectUri } from './admin-docs-client';
import { ADMIN_OAUTH_SCHEME, ADMIN_SECURITY_SCHEME } from './admin-openapi.decorators';

const DESCRIPTION = [
  'Administers the platform: tenants, their users, roles and OAuth clients, their tool catalog, the upstream MCP servers it federates and the virtual servers that expose it, their resources and prompts, and their MCP tasks.',
  '',
  `Every route needs \`Authorization: Bearer <access token>\`: a JWT issued by this authorization server for the resource (audience) \`<this origin>/admin/v1\` with the \`${ADMIN_SCOPE}\` scope.`,
  'A platform administrator (role `platform-admin`) may do everything; a tenant administrator (role `tenant-admin`) only what is under `/admin/v1/tenants/{its tenant}`.',
  'Errors answer `{ "error": { "code", "message" } }`.',
  '',
  '**Getting a token here**: *Authorize*, then under `oauth2` tick `admin` and *Authorize* again: you sign in as an administrator in a new window (authorization code with PKCE, the pre-registered public client `admin-docs`), and every *Try it out* then carries the token.',
  '',
  '**Automation** (no browser): a tenant administrator registers a confidential client of the tenant with `grant_types: ["client_credentials"]` and a `scope` that includes `admin` (`POST /admin/v1/tenants/{tenant}/clients`, whose answer holds the secret once); `POST <issuer>/token` with `grant_type=client_credentials`, `resource=<this origin>/admin/v1`, `scope=admin` and the client\'s credentials (HTTP Basic) gives a token with the rights of a tenant administrator of that tenant, for as long as the client exists and the tenant is enabled. Platform-wide operations (the tenants collection) take a signed-in platform administrator.',
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
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: `An access token of ${settings.issuer} for ${settings.audience}, scope \`${ADMIN_SCOPE}\``,
      },
      ADMIN_SECURITY_SCHEME,
    )
    .addOAuth2(
      {
        type: 'oauth2',
        description: `Sign in at ${settings.issuer} as an administrator (client \`${ADMIN_DOCS_CLIENT_ID}\`, PKCE); the token is for ${settings.audience}`,
        flows: {
          authorizationCode: {
            authorizationUrl: `${settings.issuer}/auth`,
            tokenUrl: `${settings.issuer}/token`,
            scopes: { [ADMIN_SCOPE]: 'Administer the platform with the rights of your administrator role' },
          },
        },
      },
      ADMIN_OAUTH_SCHEME,
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
  const settings = app.get<AdminApiSettings>(ADMIN_API_SETTINGS);
  SwaggerModule.setup(ADMIN_DOCS_PATH, app, () => buildAdminOpenApiDocument(app), {
    jsonDocumentUrl: ADMIN_OPENAPI_JSON_PATH,
    raw: ['json'],
    customSiteTitle: 'MCP platform admin API',
    swaggerOptions: {
      persistAuthorization: false,
      // Authorize signs in at this platform's own authorization server, with PKCE, for the admin API (RFC 8707 resource).
      oauth2RedirectUrl: adminDocsRedirectUri(settings),
      initOAuth: {
        clientId: ADMIN_DOCS_CLIENT_ID,
        usePkceWithAuthorizationCodeGrant: true,
        scopes: [ADMIN_SCOPE],
        additionalQueryStringParams: { resource: settings.audience },
      },
    },
  });
}
