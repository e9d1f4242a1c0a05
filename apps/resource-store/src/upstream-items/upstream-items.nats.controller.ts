import { Controller } from '@nestjs/common';
import { resourceStore, type RpcRequestParsed } from '@mcp-platform/protocol-contracts';
import { RpcHandler } from '@mcp-platform/shared-messaging';
import { UpstreamItemsService } from './upstream-items.service';

/** The tool executor hands the store an upstream source's approved items (no principal: the executor is trusted, tenant-scoped by the request). */
@Controller()
export class UpstreamItemsNatsController {
  constructor(private readonly upstreamItems: UpstreamItemsService) {}

  @RpcHandler(resourceStore.putUpstreamItems)
  put(request: RpcRequestParsed<typeof resourceStore.putUpstreamItems>) {
    return this.upstreamItems.put(request);
  }
}
