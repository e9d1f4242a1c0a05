import { Injectable } from '@nestjs/common';
import type { Principal, RpcResponse, toolExecutor } from '@mcp-platform/protocol-contracts';
import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import { CatalogService } from '../catalog/catalog.service';
import { decodeListCursor, encodeListCursor } from './list-cursor';
import { assertTenantAccess, listCacheScope, mayObtain, mayUse } from './tool-access';

/** tools/list page size (S-239: ours to choose). */
export const TOOLS_PAGE_SIZE = 100;

/**
 * Freshness hint of tools/list (S-180, S-246, S-247). 60 s: short enough that a missed `list_changed`
 * heals quickly; `catalogChanged` invalidates earlier anyway. The `cacheScope` depends on the server
 * (`listCacheScope`).
 */
export const TOOLS_LIST_TTL_MS = 60_000;

/** Reads of the catalog snapshot: tools pages and virtual servers. Never touches the database. */
@Injectable()
export class ToolsService {
  constructor(private readonly catalog: CatalogService) {}

  /**
   * One page of the tools the principal may call, or could call after stepping up (S-179: the list may
   * vary by the caller's authorization, and stays in name order; issue 13 item 13). Filtering happens
   * before paging, so a cursor (the last name served) keeps working whatever the caller may see.
   */
  listTools(tenant: string, server: string, cursor: string | undefined, principal: Principal | undefined): RpcResponse<typeof toolExecutor.listTools> {
    const caller = assertTenantAccess(principal, tenant);
    const after = cursor === undefined ? undefined : decodeListCursor(cursor);
    const snapshot = this.catalog.getServer(tenant, server);
    if (!snapshot) throw new RpcError(WireErrorCode.NotFound, `Unknown virtual server: ${tenant}/${server}`);
    const visible = snapshot.tools.filter((tool) => mayUse(caller, tool) || mayObtain(caller, tool));
    const start = after === undefined ? 0 : visible.findIndex((tool) => tool.wire.name > after);
    const remaining = start < 0 ? [] : visible.slice(start);
    const page = remaining.slice(0, TOOLS_PAGE_SIZE);
    const last = page[page.length - 1];
    return {
      tools: page.map((tool) => tool.wire),
      // S-240: only when more results exist.
      ...(remaining.length > TOOLS_PAGE_SIZE && last ? { nextCursor: encodeListCursor(last.wire.name) } : {}),
      ttlMs: TOOLS_LIST_TTL_MS,
      cacheScope: listCacheScope(snapshot),
    };
  }

  getVirtualServer(tenant: string, server: string): toolExecutor.VirtualServer {
    const snapshot = this.catalog.getServer(tenant, server);
    if (!snapshot) throw new RpcError(WireErrorCode.NotFound, `Unknown virtual server: ${tenant}/${server}`);
    return snapshot.server;
  }

  listVirtualServers(): { servers: toolExecutor.VirtualServer[] } {
    return { servers: this.catalog.listServers() };
  }
}
