import { Inject, Injectable } from '@nestjs/common';
import { BASELINE_SCOPE } from '@mcp-platform/protocol-mcp';
import { type ResolvedSessionBrokerOptions, SESSION_BROKER_OPTIONS } from '../session-broker.options';
import type { VirtualServer } from '../virtual-servers/virtual-server.cache';

/** Where RFC 9728 puts Protected Resource Metadata: this prefix, then the resource's path. */
export const PROTECTED_RESOURCE_METADATA_PREFIX = '/.well-known/oauth-protected-resource';

/** The Protected Resource Metadata document of one virtual server (RFC 9728 §2, S-133). */
export interface ProtectedResourceMetadata {
  /** The canonical MCP URL: the token audience (RFC 8707). */
  resource: string;
  authorization_servers: string[];
  /** The baseline only (S-136); tool scopes are asked for by step-up challenges. Never `offline_access` (S-137). */
  scopes_supported: string[];
  /** Tokens only in the Authorization header (S-138). */
  bearer_methods_supported: string[];
  resource_name: string;
}

/**
 * Each virtual server as an OAuth protected resource: its resource identifier (the MCP URL clients
 * use), the URL of its metadata document, and the document itself.
 */
@Injectable()
export class ProtectedResources {
  private readonly publicUrl: string;
  private readonly issuer: string;

  constructor(@Inject(SESSION_BROKER_OPTIONS) options: ResolvedSessionBrokerOptions) {
    this.publicUrl = options.publicUrl;
    this.issuer = options.auth.issuer;
  }

  /** `<PUBLIC_URL>/<tenant>/<server>/mcp`: the resource identifier and the audience its tokens carry. */
  resourceUrl(server: Pick<VirtualServer, 'tenant' | 'name'>): string {
    return `${this.publicUrl}${resourcePath(server)}`;
  }

  /** `<PUBLIC_URL>/.well-known/oauth-protected-resource/<tenant>/<server>/mcp` (RFC 9728 §3.1). */
  metadataUrl(server: Pick<VirtualServer, 'tenant' | 'name'>): string {
    return `${this.publicUrl}${PROTECTED_RESOURCE_METADATA_PREFIX}${resourcePath(server)}`;
  }

  metadata(server: VirtualServer): ProtectedResourceMetadata {
    return {
      resource: this.resourceUrl(server),
      authorization_servers: [this.issuer],
      scopes_supported: [BASELINE_SCOPE],
      bearer_methods_supported: ['header'],
      resource_name: server.title ?? server.name,
    };
  }
}

function resourcePath(server: Pick<VirtualServer, 'tenant' | 'name'>): string {
  return `/${encodeURIComponent(server.tenant)}/${encodeURIComponent(server.name)}/mcp`;
}
