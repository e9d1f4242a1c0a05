import { Controller } from '@nestjs/common';
import { type RpcRequestParsed, toolExecutor } from '@mcp-platform/protocol-contracts';
import { type CallContext, RpcHandler } from '@mcp-platform/shared-messaging';
import { UpstreamReadsService } from './upstream-reads.service';

/**
 * The resource store's reads of upstream items on the bus (`upstream-reads.contracts.ts`), for the caller
 * the store serves: its principal travels in the call's context.
 */
@Controller()
export class UpstreamReadsNatsController {
  constructor(private readonly reads: UpstreamReadsService) {}

  @RpcHandler(toolExecutor.readUpstreamResource)
  readResource(request: RpcRequestParsed<typeof toolExecutor.readUpstreamResource>, context: CallContext) {
    return this.reads.readResource(request, context.principal);
  }

  @RpcHandler(toolExecutor.readUpstreamDirectory)
  readDirectory(request: RpcRequestParsed<typeof toolExecutor.readUpstreamDirectory>, context: CallContext) {
    return this.reads.readDirectory(request, context.principal);
  }

  @RpcHandler(toolExecutor.getUpstreamPrompt)
  getPrompt(request: RpcRequestParsed<typeof toolExecutor.getUpstreamPrompt>, context: CallContext) {
    return this.reads.getPrompt(request, context.principal);
  }

  @RpcHandler(toolExecutor.completeUpstream)
  complete(request: RpcRequestParsed<typeof toolExecutor.completeUpstream>, context: CallContext) {
    return this.reads.complete(request, context.principal);
  }
}
