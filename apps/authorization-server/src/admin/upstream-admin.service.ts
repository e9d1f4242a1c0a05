import { Injectable } from '@nestjs/common';
import { toolExecutor } from '@mcp-platform/protocol-contracts';
import { MessageBus } from '@mcp-platform/shared-messaging';
import type { AdminPrincipal } from './admin-access';
import type {
  StdioServerList,
  UpstreamApprovalBody,
  UpstreamApprovalList,
  UpstreamItemList,
  UpstreamPutResult,
  UpstreamSourceBody,
  UpstreamSourceList,
  UpstreamSourceView,
} from './upstream-admin.schemas';

/**
 * A tenant's upstream MCP servers (issue 15) as the admin API manages them: each operation is one
 * upstream administration RPC to the tool executor, which owns the sources, connects to them and
 * pins what they list until an administrator approves it. Wire errors pass through unchanged; the
 * admin API's error mapper turns them into statuses (`DIGEST_CHANGED` into 409).
 */
@Injectable()
export class UpstreamAdminService {
  constructor(private readonly bus: MessageBus) {}

  list(tenant: string): Promise<UpstreamSourceList> {
    return this.bus.request(toolExecutor.listUpstreams, { tenant });
  }

  get(tenant: string, source: string): Promise<UpstreamSourceView> {
    return this.bus.request(toolExecutor.getUpstream, { tenant, source });
  }

  /** Creates or replaces the source named by the path (a name in the body is not read). */
  put(tenant: string, source: string, body: UpstreamSourceBody): Promise<UpstreamPutResult> {
    return this.bus.request(toolExecutor.putUpstream, { tenant, upstream: { ...body, name: source } });
  }

  async delete(tenant: string, source: string): Promise<void> {
    await this.bus.request(toolExecutor.deleteUpstream, { tenant, source });
  }

  refresh(tenant: string, source: string): Promise<UpstreamSourceView> {
    return this.bus.request(toolExecutor.refreshUpstream, { tenant, source });
  }

  listItems(tenant: string, source: string): Promise<UpstreamItemList> {
    return this.bus.request(toolExecutor.listUpstreamItems, { tenant, source });
  }

  /** Approves tools as reviewed; the executor's audit names the administrator (`actor`: the token's subject). */
  approve(tenant: string, source: string, body: UpstreamApprovalBody, actor: AdminPrincipal): Promise<UpstreamItemList> {
    return this.bus.request(toolExecutor.approveUpstreamItems, { tenant, source, actor: actor.subject, items: body.items });
  }

  listApprovals(tenant: string, source: string): Promise<UpstreamApprovalList> {
    return this.bus.request(toolExecutor.listUpstreamApprovals, { tenant, source });
  }

  listStdioServers(tenant: string): Promise<StdioServerList> {
    return this.bus.request(toolExecutor.listStdioServers, { tenant });
  }
}
