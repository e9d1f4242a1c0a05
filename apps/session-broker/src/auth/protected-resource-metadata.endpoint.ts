import { Injectable } from '@nestjs/common';
import { VirtualServerCache } from '../virtual-servers/virtual-server.cache';
import { ProtectedResources } from './protected-resources';

/** One HTTP answer: status, headers and a JSON body. */
export interface MetadataAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * Headers that let browser-based clients read the document cross-origin: it is public information
 * (RFC 9728 §3), the same for every caller, and carries no credentials.
 */
export const METADATA_CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
};

/** The answer to a CORS preflight for the metadata document. */
export const METADATA_PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  ...METADATA_CORS_HEADERS,
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'mcp-protocol-version, authorization, content-type',
  'access-control-max-age': '86400',
};

/**
 * `GET /.well-known/oauth-protected-resource/<tenant>/<server>/mcp` (RFC 9728 §3.1, S-133/S-134):
 * the metadata of a virtual server that exists, 404 otherwise, 503 while the catalog is unreachable.
 */
@Injectable()
export class ProtectedResourceMetadataEndpoint {
  constructor(
    private readonly servers: VirtualServerCache,
    private readonly resources: ProtectedResources,
  ) {}

  async answer(tenant: string, server: string): Promise<MetadataAnswer> {
    const lookup = await this.servers.resolve(tenant, server);
    if (lookup.found) {
      // Changes only with the catalog (the server's title); five minutes of caching is harmless.
      return { status: 200, headers: { ...METADATA_CORS_HEADERS, 'cache-control': 'public, max-age=300' }, body: this.resources.metadata(lookup.server) };
    }
    if (lookup.reason === 'not-found') {
      return {
        status: 404,
        headers: { ...METADATA_CORS_HEADERS, 'cache-control': 'no-store' },
        body: { error: 'not_found', error_description: 'no MCP server at this URL' },
      };
    }
    return {
      status: 503,
      headers: { ...METADATA_CORS_HEADERS, 'cache-control': 'no-store', 'retry-after': '1' },
      body: { error: 'temporarily_unavailable', error_description: 'the catalog is unavailable; retry later' },
    };
  }
}
