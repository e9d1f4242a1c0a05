import { Controller } from '@nestjs/common';
import { resourceStore, type RpcRequestParsed } from '@mcp-platform/protocol-contracts';
import { type CallContext, RpcHandler } from '@mcp-platform/shared-messaging';
import { CompletionService } from './completion.service';

/** completion/complete on the bus. */
@Controller()
export class CompletionNatsController {
  constructor(private readonly completion: CompletionService) {}

  @RpcHandler(resourceStore.complete)
  complete(request: RpcRequestParsed<typeof resourceStore.complete>, context: CallContext) {
    return this.completion.complete(request, request.ref, request.argument, request.context?.arguments, context.principal);
  }
}
