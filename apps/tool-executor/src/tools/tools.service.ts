import { Injectable } from '@nestjs/common';
import type { RpcResponse, toolExecutor } from '@mcp-platform/protocol-contracts';
import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import { CatalogService } from '../catalog/catalog.service';
import { decodeListCursor, encodeListCursor } from './list-cursor';

/** tools/list page size (S-239: ours to choose). */
export const TOOLS_PAGE_SIZE = 100;

/**
 * Caching hints of tools/list (S-180, S-246..S-249). `public`: the list depends only on the virtual
 * server, not on the caller (no per-user filtering yet; when scopes filter tools it must become
 * `private`). 60 s: short enough that a missed `list_changed` heals quickly; `catalogChanged`
 * invalidates earlier anyway.
 */
export const TOOLS_LIST_CACHE = { ttlMs: 60_000, cacheScope: 'public' } as const;

/** Reads of the catalog snapshot: tools pages and virtual servers. Never touches the database. */
@Injectable()
export class ToolsService {
  constructor(private readonly catalog: CatalogService) {}

  listTools(tenant: string, server: string, cursor: string | undefined): RpcResponse<typeof toolExecutor.listTools> {
    const after = cursor === undefined ? undefined : decodeListCursor(cursor);
    const snapshot = this.catalog.getServer(tenant, server);
    if (!snapshot) throw new RpcError(WireErrorCode.NotFound, `Unknown virtual server: ${tenant}/${server}`);
    const start = after === undefined ? 0 : snapshot.tools.findIndex((tool) => tool.record.name > after);
    const remaining = start < 0 ? [] : snapshot.tools.slice(start);
    const page = remaining.slice(0, TOOLS_PAGE_SIZE);
    const last = page[page.length - 1];
    return {
      tools: page.map((tool) => tool.wire),
      // S-240: only when more results exist.
      ...(remaining.length > TOOLS_PAGE_SIZE && last ? { nextCursor: encodeListCursor(last.record.name) } : {}),
      ...TOOLS_LIST_CACHE,
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
