import { Controller } from '@nestjs/common';
import { resourceStore, type RpcRequestParsed } from '@mcp-platform/protocol-contracts';
import { type CallContext, RpcHandler } from '@mcp-platform/shared-messaging';
import { ResourcesService } from './resources.service';

/** resources/list, resources/templates/list and resources/read (with its chunks) on the bus: one call into the service each. */
@Controller()
export class ResourcesNatsController {
  constructor(private readonly resources: ResourcesService) {}

  @RpcHandler(resourceStore.listResources)
  listResources(request: RpcRequestParsed<typeof resourceStore.listResources>, context: CallContext) {
    return this.resources.listResources(request, request.cursor, context.principal);
  }

  @RpcHandler(resourceStore.listResourceTemplates)
  listResourceTemplates(request: RpcRequestParsed<typeof resourceStore.listResourceTemplates>, context: CallContext) {
    return this.resources.listResourceTemplates(request, request.cursor, context.principal);
  }

  @RpcHandler(resourceStore.readResource)
  readResource(request: RpcRequestParsed<typeof resourceStore.readResource>, context: CallContext) {
    return this.resources.read(request, request.uri, context.principal, request.acceptChunks ?? false);
  }

  @RpcHandler(resourceStore.readResourceChunk)
  readResourceChunk(request: RpcRequestParsed<typeof resourceStore.readResourceChunk>, context: CallContext) {
    return this.resources.readChunk(request, request, context.principal);
  }
}
