import { Injectable } from '@nestjs/common';
import { resourceStore } from '@mcp-platform/protocol-contracts';
import { MessageBus } from '@mcp-platform/shared-messaging';
import type {
  PromptBody,
  PromptList,
  PromptPutResult,
  PromptView,
  ResourceBody,
  ResourceList,
  ResourcePutResult,
  ResourceTemplateBody,
  ResourceTemplateList,
  ResourceTemplatePutResult,
  ResourceTemplateView,
  ResourceView,
} from './resource-admin.schemas';

/**
 * A tenant's resources, resource templates and prompts as the admin API manages them: each operation
 * is one resource store administration RPC; the store validates definitions, applies the tenant quota
 * and tells brokers what changed. Wire errors pass through unchanged; the admin API's error mapper
 * turns them into statuses (the quota refusal into 413).
 */
@Injectable()
export class ResourceAdminService {
  constructor(private readonly bus: MessageBus) {}

  listResources(tenant: string): Promise<ResourceList> {
    return this.bus.request(resourceStore.listResourceDefinitions, { tenant });
  }

  getResource(tenant: string, uri: string): Promise<ResourceView> {
    return this.bus.request(resourceStore.getResourceDefinition, { tenant, uri });
  }

  putResource(tenant: string, uri: string, body: ResourceBody): Promise<ResourcePutResult> {
    return this.bus.request(resourceStore.putResourceDefinition, { tenant, resource: { ...body, uri } });
  }

  async deleteResource(tenant: string, uri: string): Promise<void> {
    await this.bus.request(resourceStore.deleteResourceDefinition, { tenant, uri });
  }

  listResourceTemplates(tenant: string): Promise<ResourceTemplateList> {
    return this.bus.request(resourceStore.listResourceTemplateDefinitions, { tenant });
  }

  getResourceTemplate(tenant: string, name: string): Promise<ResourceTemplateView> {
    return this.bus.request(resourceStore.getResourceTemplateDefinition, { tenant, name });
  }

  putResourceTemplate(tenant: string, name: string, body: ResourceTemplateBody): Promise<ResourceTemplatePutResult> {
    return this.bus.request(resourceStore.putResourceTemplateDefinition, { tenant, resourceTemplate: { ...body, name } });
  }

  async deleteResourceTemplate(tenant: string, name: string): Promise<void> {
    await this.bus.request(resourceStore.deleteResourceTemplateDefinition, { tenant, name });
  }

  listPrompts(tenant: string): Promise<PromptList> {
    return this.bus.request(resourceStore.listPromptDefinitions, { tenant });
  }

  getPrompt(tenant: string, name: string): Promise<PromptView> {
    return this.bus.request(resourceStore.getPromptDefinition, { tenant, name });
  }

  putPrompt(tenant: string, name: string, body: PromptBody): Promise<PromptPutResult> {
    return this.bus.request(resourceStore.putPromptDefinition, { tenant, prompt: { ...body, name } });
  }

  async deletePrompt(tenant: string, name: string): Promise<void> {
    await this.bus.request(resourceStore.deletePromptDefinition, { tenant, name });
  }
}
