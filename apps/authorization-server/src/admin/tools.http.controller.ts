import { Delete, Get, Post, Put } from '@nestjs/common';
import { AdminController, AdminRoute, ZodBody, ZodParam } from './admin-openapi.decorators';
import { TenantSlugSchema, type ToolBody, ToolBodySchema, ToolListSchema, ToolNameSchema, ToolPutResultSchema, ToolViewSchema } from './catalog-admin.schemas';
import { CatalogAdminService } from './catalog-admin.service';

/** A tenant's tool catalog: built-in and HTTP tools, their required scopes, enabled or not. */
@AdminController({ path: 'tenants/:tenant/tools', tag: 'tools', access: 'tenant' })
export class ToolsHttpController {
  constructor(private readonly catalog: CatalogAdminService) {}

  @Get()
  @AdminRoute({ operationId: 'listTools', summary: "List the tenant's tools (enabled or not)", response: ToolListSchema, errors: [404, 503] })
  list(@ZodParam('tenant', TenantSlugSchema) tenant: string) {
    return this.catalog.listTools(tenant);
  }

  @Get(':name')
  @AdminRoute({
    operationId: 'getTool',
    summary: 'Get a tool',
    description:
      'Header values are never shown (`{ "set": true }` per header). An HTTP tool\'s `lastError` is its last outbound failure: the details its callers did not see, under the error id they were given.',
    response: ToolViewSchema,
    errors: [404, 503],
  })
  get(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('name', ToolNameSchema) name: string) {
    return this.catalog.getTool(tenant, name);
  }

  @Put(':name')
  @AdminRoute({
    operationId: 'putTool',
    summary: 'Create or replace a tool',
    description:
      'A built-in handler of the tool executor or an HTTP endpoint (what the platform sends it and how its answers become tool results: see `config` of an `http` tool). `execution.taskSupport` says whether it runs as an MCP task: `forbidden` (the default, then absent), `optional` or `required`. An HTTP tool\'s header values are write-only: a replacement names only the headers it changes (a string sets, `null` removes, `{ "set": true }` or leaving it out keeps), and stored values never follow the URL to another origin. An `inputSchema` property may carry `x-mcp-header` (arguments mirrored into `Mcp-Param-*` headers on the 2026-07-28 wire); an invalid declaration refuses the tool with 400 (see `inputSchema`). Virtual servers exposing it tell their clients `list_changed`.',
    response: ToolPutResultSchema,
    errors: [404, 503],
  })
  put(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('name', ToolNameSchema) name: string, @ZodBody(ToolBodySchema) body: ToolBody) {
    return this.catalog.putTool(tenant, name, body);
  }

  @Delete(':name')
  @AdminRoute({ operationId: 'deleteTool', summary: 'Delete a tool (virtual servers stop exposing it)', status: 204, errors: [404, 503] })
  delete(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('name', ToolNameSchema) name: string) {
    return this.catalog.deleteTool(tenant, name);
  }

  @Post(':name/disable')
  @AdminRoute({
    operationId: 'disableTool',
    summary: 'Disable a tool: it stays in the catalog but is neither listed nor callable',
    response: ToolViewSchema,
    errors: [404, 503],
  })
  disable(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('name', ToolNameSchema) name: string) {
    return this.catalog.setToolEnabled(tenant, name, false);
  }

  @Post(':name/enable')
  @AdminRoute({ operationId: 'enableTool', summary: 'Enable a tool again', response: ToolViewSchema, errors: [404, 503] })
  enable(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('name', ToolNameSchema) name: string) {
    return this.catalog.setToolEnabled(tenant, name, true);
  }
}
