import { Delete, Get, Put, StreamableFile } from '@nestjs/common';
import { AdminController, AdminRoute, RawUploadBody, ZodBody, ZodParam, ZodQuery, ZodQueryObject } from './admin-openapi.decorators';
import { RawUpload, RawUploadRoute } from './admin-raw-upload';
import {
  type ResourceBody,
  ResourceBodySchema,
  ResourceListSchema,
  ResourcePutResultSchema,
  type ResourceUploadQuery,
  ResourceUploadQuerySchema,
  ResourceUploadResultSchema,
  ResourceUriSchema,
  ResourceViewSchema,
  TenantSlugSchema,
} from './resource-admin.schemas';
import { ResourceAdminService } from './resource-admin.service';

const URI_DESCRIPTION = 'The resource\'s absolute URI, percent-encoded (e.g. `curl --url-query "uri=demo://guide"`)';

/**
 * A tenant's resources in the resource store: text, or bytes uploaded as base64 (`blob` with its
 * `mimeType`) up to 512 KiB, or as the raw request body (`/by-uri/content`) up to the upload limit.
 * One resource is addressed by `?uri=` under `/resources/by-uri`, since a URI holds slashes and colons
 * that do not fit one path segment.
 */
@AdminController({ path: 'tenants/:tenant/resources', tag: 'resources', access: 'tenant' })
export class ResourcesHttpController {
  constructor(private readonly resources: ResourceAdminService) {}

  @Get()
  @AdminRoute({ operationId: 'listResources', summary: "List the tenant's resources (without content)", response: ResourceListSchema, errors: [503] })
  list(@ZodParam('tenant', TenantSlugSchema) tenant: string) {
    return this.resources.listResources(tenant);
  }

  @Get('by-uri')
  @AdminRoute({
    operationId: 'getResource',
    summary: 'Get a resource with its content (a blob as base64)',
    description: 'Content over 512 KiB (one NATS message) is left out: `size` says how large it is, and `GET …/by-uri/content` downloads it.',
    response: ResourceViewSchema,
    errors: [404, 503],
  })
  get(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodQuery('uri', ResourceUriSchema, URI_DESCRIPTION) uri: string) {
    return this.resources.getResource(tenant, uri);
  }

  @Put('by-uri')
  @AdminRoute({
    operationId: 'putResource',
    summary: 'Create or replace a resource (text, or a binary upload as base64 `blob`)',
    description:
      'Exactly one of `text` and `blob`; at most 512 KiB of content per resource (larger content: `PUT …/by-uri/content`), and the tenant quota applies (413 when it would be exceeded). ' +
      'Subscribers of the URI hear `notifications/resources/updated`, the servers exposing it `list_changed`.',
    response: ResourcePutResultSchema,
    errors: [413, 503],
  })
  put(
    @ZodParam('tenant', TenantSlugSchema) tenant: string,
    @ZodQuery('uri', ResourceUriSchema, URI_DESCRIPTION) uri: string,
    @ZodBody(ResourceBodySchema) body: ResourceBody,
  ) {
    return this.resources.putResource(tenant, uri, body);
  }

  @Put('by-uri/content')
  @RawUploadRoute()
  @AdminRoute({
    operationId: 'uploadResourceContent',
    summary: "Create a resource, or replace a resource's content, from the raw request body",
    description:
      'The body is the content itself, sent on to the resource store in 256 KiB chunks and written at once when complete; it is stored as bytes and served as a `blob`. ' +
      "Its media type is `mimeType` if given, else the request's `Content-Type` (any, JSON included, but `application/x-www-form-urlencoded`, curl's default for `--data-binary`), else `application/octet-stream`. " +
      'A new resource needs `name`; for an existing one, the metadata given (`name`, `title`, `description`, `servers`) replaces its own and the rest (annotations and icons too) is kept. ' +
      "Limits: the admin API's `ADMIN_UPLOAD_LIMIT_BYTES` (16 MiB by default) and the store's `RESOURCE_STORE_MAX_RESOURCE_BYTES` (413 `PAYLOAD_TOO_LARGE`), and the tenant quota (413 `QUOTA_EXCEEDED`). " +
      'Subscribers of the URI hear `notifications/resources/updated`, the servers exposing it `list_changed`.',
    response: ResourceUploadResultSchema,
    errors: [413, 503],
  })
  upload(
    @ZodParam('tenant', TenantSlugSchema) tenant: string,
    @ZodQuery('uri', ResourceUriSchema, URI_DESCRIPTION) uri: string,
    @ZodQueryObject(ResourceUploadQuerySchema) query: ResourceUploadQuery,
    @RawUploadBody('The content, any media type') body: RawUpload,
  ) {
    return this.resources.uploadResourceContent(tenant, uri, query, body);
  }

  @Get('by-uri/content')
  @AdminRoute({
    operationId: 'downloadResourceContent',
    summary: "Download a resource's content as raw bytes",
    description:
      'The content with its media type as `Content-Type` and its size as `Content-Length`, read from the resource store chunk by chunk. A text comes as its UTF-8 bytes. ' +
      'Rewritten during the download, the response ends short rather than mixing two versions.',
    binaryResponse: true,
    errors: [404, 503],
  })
  async download(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodQuery('uri', ResourceUriSchema, URI_DESCRIPTION) uri: string) {
    const download = await this.resources.downloadResourceContent(tenant, uri);
    return new StreamableFile(download.content, { type: download.mimeType, length: download.size });
  }

  @Delete('by-uri')
  @AdminRoute({ operationId: 'deleteResource', summary: 'Delete a resource', status: 204, errors: [404, 503] })
  delete(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodQuery('uri', ResourceUriSchema, URI_DESCRIPTION) uri: string) {
    return this.resources.deleteResource(tenant, uri);
  }
}
