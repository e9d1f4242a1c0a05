import { Controller } from '@nestjs/common';
import { type RpcRequestParsed, toolExecutor } from '@mcp-platform/protocol-contracts';
import { RpcHandler } from '@mcp-platform/shared-messaging';
import { UpstreamAdminService } from './upstream-admin.service';

/**
 * Upstream source administration on the bus (`upstream-admin.contracts.ts`): one call into the service
 * each. The caller (the admin API) has already decided the administrator may act on the tenant.
 */
@Controller()
export class UpstreamsNatsController {
  constructor(private readonly admin: UpstreamAdminService) {}

  @RpcHandler(toolExecutor.listUpstreams)
  list(request: RpcRequestParsed<typeof toolExecutor.listUpstreams>) {
    return this.admin.list(request.tenant);
  }

  @RpcHandler(toolExecutor.getUpstream)
  get(request: RpcRequestParsed<typeof toolExecutor.getUpstream>) {
    return this.admin.get(request.tenant, request.source);
  }

  @RpcHandler(toolExecutor.putUpstream)
  put(request: RpcRequestParsed<typeof toolExecutor.putUpstream>) {
    return this.admin.put(request.tenant, request.upstream);
  }

  @RpcHandler(toolExecutor.deleteUpstream)
  delete(request: RpcRequestParsed<typeof toolExecutor.deleteUpstream>) {
    return this.admin.delete(request.tenant, request.source);
  }

  @RpcHandler(toolExecutor.refreshUpstream)
  refresh(request: RpcRequestParsed<typeof toolExecutor.refreshUpstream>) {
    return this.admin.refresh(request.tenant, request.source);
  }

  @RpcHandler(toolExecutor.listUpstreamItems)
  items(request: RpcRequestParsed<typeof toolExecutor.listUpstreamItems>) {
    return this.admin.items(request.tenant, request.source);
  }

  @RpcHandler(toolExecutor.approveUpstreamItems)
  approve(request: RpcRequestParsed<typeof toolExecutor.approveUpstreamItems>) {
    return this.admin.approve(request.tenant, request.source, request.actor, request.items);
  }

  @RpcHandler(toolExecutor.listUpstreamApprovals)
  approvals(request: RpcRequestParsed<typeof toolExecutor.listUpstreamApprovals>) {
    return this.admin.approvals(request.tenant, request.source);
  }

  @RpcHandler(toolExecutor.listStdioServers)
  stdioServers(request: RpcRequestParsed<typeof toolExecutor.listStdioServers>) {
    return this.admin.stdioServers(request.tenant);
  }
}
