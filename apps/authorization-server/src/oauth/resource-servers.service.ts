import { Inject, Injectable } from '@nestjs/common';
import { toolExecutor, WireErrorCode } from '@mcp-platform/protocol-contracts';
import { ADMIN_SCOPE } from '@mcp-platform/protocol-mcp';
import { isRpcError, MessageBus } from '@mcp-platform/shared-messaging';
import { AUTHORIZATION_SERVER_OPTIONS } from '../authorization-server.constants';
import type { ResolvedAuthorizationServerOptions } from '../authorization-server.options';

/** What a resource indicator (RFC 8707) names: the admin API, or one virtual server's MCP endpoint. */
export type ResourceTarget = { kind: 'admin'; audience: string } | { kind: 'mcp'; audience: string; tenant: string; server: string };

/** A resource the authorization server issues tokens for, with every scope it knows. */
export interface ResourceDescription {
  target: ResourceTarget;
  /** The admin API: `admin`; a virtual server: the baseline plus its tools' scopes (from the tool executor). */
  scopes: string[];
  /** The server's title, for the consent page. */
  title?: string;
}

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** How long a virtual server's scopes are reused within one flow (authorize, consent, token: three look-ups). */
const CACHE_MS = 5_000;

/**
 * Resolves resource indicators. A resource is either exactly the admin audience or exactly
 * `${mcpPublicUrl}/<tenant>/<server>/mcp` of an existing virtual server (asked of the tool executor
 * over the bus); anything else is not a resource of this server (`invalid_target`).
 */
@Injectable()
export class ResourceServersService {
  private readonly cache = new Map<string, { description: ResourceDescription | undefined; expiresAt: number }>();

  constructor(
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: ResolvedAuthorizationServerOptions,
    private readonly bus: MessageBus,
  ) {}

  /** What the resource URL names, by its form alone (no look-up); `undefined` when it names nothing of ours. */
  parse(resource: string): ResourceTarget | undefined {
    if (resource === this.options.adminAudience) return { kind: 'admin', audience: resource };
    const prefix = `${this.options.mcpPublicUrl}/`;
    if (!resource.startsWith(prefix)) return undefined;
    const [tenant, server, mcp, ...rest] = resource.slice(prefix.length).split('/');
    if (rest.length > 0 || mcp !== 'mcp' || !tenant || !server || !SLUG.test(tenant) || !SLUG.test(server)) return undefined;
    return { kind: 'mcp', audience: resource, tenant, server };
  }

  /** The resource with its scopes; `undefined` when it is not ours or the virtual server does not exist. */
  async describe(resource: string): Promise<ResourceDescription | undefined> {
    const target = this.parse(resource);
    if (!target) return undefined;
    if (target.kind === 'admin') return { target, scopes: [ADMIN_SCOPE], title: 'Administration API' };
    const cached = this.cache.get(resource);
    if (cached && cached.expiresAt > Date.now()) return cached.description;
    let description: ResourceDescription | undefined;
    try {
      const server = await this.bus.request(toolExecutor.getVirtualServer, { tenant: target.tenant, server: target.server });
      description = { target, scopes: server.scopes, ...(server.title ? { title: server.title } : {}) };
    } catch (error) {
      if (!isRpcError(error) || error.code !== WireErrorCode.NotFound) throw error;
      description = undefined;
    }
    this.cache.set(resource, { description, expiresAt: Date.now() + CACHE_MS });
    if (this.cache.size > 1_000) this.cache.delete(this.cache.keys().next().value as string);
    return description;
  }
}
