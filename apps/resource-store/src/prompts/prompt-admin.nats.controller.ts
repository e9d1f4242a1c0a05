import { Controller } from '@nestjs/common';
import { resourceStore, type RpcRequestParsed } from '@mcp-platform/protocol-contracts';
import { RpcHandler } from '@mcp-platform/shared-messaging';
import { PromptsService } from './prompts.service';

/** Administration of a tenant's prompts on the bus (the admin API calls these). */
@Controller()
export class PromptAdminNatsController {
  constructor(private readonly prompts: PromptsService) {}

  @RpcHandler(resourceStore.listPromptDefinitions)
  list(request: RpcRequestParsed<typeof resourceStore.listPromptDefinitions>) {
    return this.prompts.listPromptDefinitions(request.tenant);
  }

  @RpcHandler(resourceStore.getPromptDefinition)
  get(request: RpcRequestParsed<typeof resourceStore.getPromptDefinition>) {
    return this.prompts.getPromptDefinition(request.tenant, request.name);
  }

  @RpcHandler(resourceStore.putPromptDefinition)
  put(request: RpcRequestParsed<typeof resourceStore.putPromptDefinition>) {
    return this.prompts.putPromptDefinition(request.tenant, request.prompt);
  }

  @RpcHandler(resourceStore.deletePromptDefinition)
  delete(request: RpcRequestParsed<typeof resourceStore.deletePromptDefinition>) {
    return this.prompts.deletePrompt(request.tenant, request.name);
  }
}
