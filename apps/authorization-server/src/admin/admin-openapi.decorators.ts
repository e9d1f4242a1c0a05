import { applyDecorators, Body, Controller, HttpCode, Param, Query, SetMetadata, UseFilters, UseGuards, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiOAuth2, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags, type SchemaObject } from '@nestjs/swagger';
import { z } from 'zod';
import { ADMIN_SCOPE } from '@mcp-platform/protocol-mcp';
import { ADMIN_API_PATH } from './admin.constants';
import { AdminErrorBodySchema } from './admin.errors';
import type { AdminAccessLevel } from './admin-access';
import { ADMIN_OPERATION, AdminAuditInterceptor } from './admin-audit.interceptor';
import { AdminAccess, AdminAuthGuard } from './admin-auth.guard';
import { AdminCreatedStatusInterceptor } from './admin-created-status.interceptor';
import { AdminExceptionFilter } from './admin-exception.filter';
import { AdminNoStoreInterceptor } from './admin-no-store.interceptor';
import { requireRawUpload } from './admin-raw-upload';
import { ZodValidationPipe } from './zod-validation.pipe';

/** The name of the bearer security scheme in the OpenAPI document. */
export const ADMIN_SECURITY_SCHEME = 'bearer';
/** The name of the OAuth 2.0 security scheme (authorization code with PKCE, Swagger UI's Authorize). */
export const ADMIN_OAUTH_SCHEME = 'oauth2';

/**
 * A Zod schema as an OpenAPI 3.1 schema object (JSON Schema 2020-12): requests as the API accepts them
 * (`input`: defaults make fields optional), responses as it answers (`output`).
 */
export function openApiSchema(schema: z.ZodType, io: 'input' | 'output'): SchemaObject {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return json as SchemaObject;
}

/**
 * An admin controller: its path under `/admin/v1`, its OpenAPI tag, the bearer security scheme, the
 * guard that authenticates and authorizes every route (at `access`), the audit log of mutations and
 * the error envelope. Every admin controller goes through here, so none can forget one of them.
 */
export function AdminController(options: { path: string; tag: string; access: AdminAccessLevel }): ClassDecorator {
  return applyDecorators(
    Controller(`${ADMIN_API_PATH}/${options.path}`.replace(/\/+$/, '')),
    ApiTags(options.tag),
    // Either scheme: a token pasted in, or one Swagger UI obtained itself (each is one alternative).
    ApiBearerAuth(ADMIN_SECURITY_SCHEME),
    ApiOAuth2([ADMIN_SCOPE], ADMIN_OAUTH_SCHEME),
    AdminAccess(options.access),
    UseGuards(AdminAuthGuard),
    UseInterceptors(AdminNoStoreInterceptor, AdminAuditInterceptor),
    UseFilters(AdminExceptionFilter),
  );
}

/** Error statuses every admin route may answer (validation of the path, authentication, authorization, failures). */
const COMMON_ERRORS = [400, 401, 403, 500] as const;
type DocumentedError = 400 | 401 | 403 | 404 | 409 | 413 | 500 | 503;

const ERROR_DESCRIPTIONS: Record<DocumentedError, string> = {
  400: 'INVALID_REQUEST: a path parameter, the body or the requested change is invalid',
  401: 'UNAUTHORIZED: no valid Bearer access token for the admin API (with a `WWW-Authenticate: Bearer` challenge)',
  403: 'INSUFFICIENT_SCOPE (no `admin` scope) or FORBIDDEN (the roles do not cover this tenant or resource)',
  404: 'NOT_FOUND: the addressed tenant or resource does not exist',
  409: 'CONFLICT: it exists already, or the change conflicts with the current state',
  413: 'QUOTA_EXCEEDED: the content would take the tenant over its resource storage quota; PAYLOAD_TOO_LARGE: the body or the resource is over its size limit',
  500: 'INTERNAL: unexpected failure; the body carries the logged `errorId`',
  503: 'UNAVAILABLE: the service behind the route (tool executor, resource store, task scheduler) did not answer',
};

/** What one route does, answers and may refuse, for the OpenAPI document. */
export interface AdminRouteOptions {
  /** A stable operation id, also the `action` of the audit log line (e.g. `createUser`). */
  operationId: string;
  summary: string;
  description?: string;
  /** Success status (default 200). */
  status?: 200 | 201 | 204;
  /** A put whose answer says `created`: 201 when it created the resource, `status` (200) when it replaced it; both documented. */
  createdStatus?: boolean;
  /** The success body's schema; absent for 204. */
  response?: z.ZodType;
  /** Route-specific error statuses besides 400, 401, 403 and 500. */
  errors?: ReadonlyArray<404 | 409 | 413 | 503>;
  /** The success body is raw bytes in the media type the description names (a download), not JSON. */
  binaryResponse?: boolean;
}

/** Documents one route (operation, success and error responses) and sets its success status. */
export function AdminRoute(options: AdminRouteOptions): MethodDecorator {
  const status = options.status ?? 200;
  const errorBody = openApiSchema(AdminErrorBodySchema, 'output');
  const errors: DocumentedError[] = [...COMMON_ERRORS, ...(options.errors ?? [])].sort((a, b) => a - b);
  return applyDecorators(
    SetMetadata(ADMIN_OPERATION, options.operationId),
    ApiOperation({ operationId: options.operationId, summary: options.summary, ...(options.description ? { description: options.description } : {}) }),
    HttpCode(status),
    options.binaryResponse
      ? ApiResponse({
          status,
          description: 'Success: the bytes, with their media type as `Content-Type`',
          content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
        })
      : ApiResponse({
          status,
          description: status === 204 ? 'Done; no body' : options.createdStatus ? 'Replaced' : 'Success',
          ...(options.response ? { schema: openApiSchema(options.response, 'output') } : {}),
        }),
    ...(options.createdStatus
      ? [
          UseInterceptors(AdminCreatedStatusInterceptor),
          ApiResponse({ status: 201, description: 'Created', ...(options.response ? { schema: openApiSchema(options.response, 'output') } : {}) }),
        ]
      : []),
    ...errors.map((code) => ApiResponse({ status: code, description: ERROR_DESCRIPTIONS[code], schema: errorBody })),
  );
}

/**
 * The request body, validated by `schema` (400 with every refused field otherwise) and documented with
 * the same schema: what the document says is what the route checks.
 */
export function ZodBody(schema: z.ZodType, description?: string): ParameterDecorator {
  return (target, propertyKey, index) => {
    Body(new ZodValidationPipe(schema, 'body'))(target, propertyKey, index);
    documentOn(target, propertyKey, ApiBody({ required: true, schema: openApiSchema(schema, 'input'), ...(description ? { description } : {}) }));
  };
}

/** A path parameter, validated by `schema` and documented with it. */
export function ZodParam(name: string, schema: z.ZodType, description?: string): ParameterDecorator {
  return (target, propertyKey, index) => {
    Param(name, new ZodValidationPipe(schema, `path parameter "${name}"`))(target, propertyKey, index);
    documentOn(target, propertyKey, ApiParam({ name, required: true, schema: openApiSchema(schema, 'input'), ...(description ? { description } : {}) }));
  };
}

/** A required query parameter, validated by `schema` and documented with it. */
export function ZodQuery(name: string, schema: z.ZodType, description?: string): ParameterDecorator {
  return (target, propertyKey, index) => {
    Query(name, new ZodValidationPipe(schema, `query parameter "${name}"`))(target, propertyKey, index);
    documentOn(target, propertyKey, ApiQuery({ name, required: true, schema: openApiSchema(schema, 'input'), ...(description ? { description } : {}) }));
  };
}

/**
 * Optional query parameters, validated together by one object schema (400 listing every refused one)
 * and each documented with its field's schema and description.
 */
export function ZodQueryObject(schema: z.ZodObject): ParameterDecorator {
  return (target, propertyKey, index) => {
    Query(new ZodValidationPipe(schema, 'query'))(target, propertyKey, index);
    for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
      const { description, ...fieldSchema } = openApiSchema(field, 'input');
      documentOn(
        target,
        propertyKey,
        ApiQuery({ name, required: !field.safeParse(undefined).success, schema: fieldSchema, ...(description ? { description } : {}) }),
      );
    }
  };
}

/** The raw body of a `RawUploadRoute()` (`admin-raw-upload.ts`), documented as bytes of any media type. */
export function RawUploadBody(description: string): ParameterDecorator {
  return (target, propertyKey, index) => {
    Body({ transform: (value: unknown) => requireRawUpload(value) })(target, propertyKey, index);
    documentOn(target, propertyKey, ApiConsumes('*/*'));
    documentOn(target, propertyKey, ApiBody({ required: true, description, schema: { type: 'string', format: 'binary' } }));
  };
}

/** Applies a method decorator from a parameter decorator (they run on the same method, parameters first). */
function documentOn(target: object, propertyKey: string | symbol | undefined, decorator: MethodDecorator): void {
  if (propertyKey === undefined) throw new Error('ZodBody/ZodParam/ZodQuery decorate method parameters only');
  const descriptor = Object.getOwnPropertyDescriptor(target, propertyKey);
  if (!descriptor) throw new Error(`no method ${String(propertyKey)} to document`);
  decorator(target, propertyKey, descriptor);
}
