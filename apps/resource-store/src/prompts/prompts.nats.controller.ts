import { Controller } from '@nestjs/common';
import { resourceStore, type RpcRequestParsed } from '@mcp-platform/protocol-contracts';
import { type CallContext, RpcHandler } from '@mcp-platform/shared-messaging';
import { PromptsService } from './prompts.service';

/** prompts/list and prompts/get on the bus: one call into the service each. */
@Controller()
export class PromptsNatsController {
  constructor(private readonly prompts: PromptsService) {}

  @RpcHandler(resourceStore.listPrompts)
  listPrompts(request: RpcRequestParsed<typeof resourceStore.listPrompts>, context: CallContext) {
    return this.prompts.listPrompts(request, request.cursor, context.principal);
  }

  @RpcHandler(resourceStore.getPrompt)
  getPrompt(request: RpcRequestParsed<typeof resourceStore.getPrompt>, context: CallContext) {
    return this.prompts.getPrompt(request, request, context.principal);
  }
}
