import { Delete, Get, Put } from '@nestjs/common';
import { AdminController, AdminRoute, ZodBody, ZodParam } from './admin-openapi.decorators';
import {
  ItemNameSchema,
  type PromptBody,
  PromptBodySchema,
  PromptListSchema,
  PromptPutResultSchema,
  PromptViewSchema,
  TenantSlugSchema,
} from './resource-admin.schemas';
import { ResourceAdminService } from './resource-admin.service';

/** A tenant's prompts: arguments (with completion values) and messages with `{{arg}}` placeholders. */
@AdminController({ path: 'tenants/:tenant/prompts', tag: 'prompts', access: 'tenant' })
export class PromptsHttpController {
  constructor(private readonly resources: ResourceAdminService) {}

  @Get()
  @AdminRoute({ operationId: 'listPrompts', summary: "List the tenant's prompts", response: PromptListSchema, errors: [503] })
  list(@ZodParam('tenant', TenantSlugSchema) tenant: string) {
    return this.resources.listPrompts(tenant);
  }

  @Get(':name')
  @AdminRoute({ operationId: 'getPrompt', summary: 'Get a prompt', response: PromptViewSchema, errors: [404, 503] })
  get(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('name', ItemNameSchema) name: string) {
    return this.resources.getPrompt(tenant, name);
  }

  @Put(':name')
  @AdminRoute({
    operationId: 'putPrompt',
    summary: 'Create or replace a prompt',
    description:
      "In message texts and embedded resource URIs and texts, `{{arg}}` becomes the argument's value (an optional argument not given becomes empty), and a section `{{#arg}}…{{/arg}}` is kept only when the argument is given and not empty: `Summarize the following text{{#length}} ({{length}}){{/length}}:` reads `Summarize the following text:` without `length`. Placeholders and sections of undeclared names stay as written.",
    response: PromptPutResultSchema,
    errors: [503],
  })
  put(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('name', ItemNameSchema) name: string, @ZodBody(PromptBodySchema) body: PromptBody) {
    return this.resources.putPrompt(tenant, name, body);
  }

  @Delete(':name')
  @AdminRoute({ operationId: 'deletePrompt', summary: 'Delete a prompt', status: 204, errors: [404, 503] })
  delete(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('name', ItemNameSchema) name: string) {
    return this.resources.deletePrompt(tenant, name);
  }
}
