import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { type Agent, request } from 'undici';
import { checkOutboundUrl, createGuardedAgent, type EgressPolicy, readLimitedBody } from '@mcp-platform/shared-egress';
import { AUTHORIZATION_SERVER_OPTIONS } from '../authorization-server.constants';
import type { ResolvedAuthorizationServerOptions } from '../authorization-server.options';
import { MAX_CLIENT_METADATA_BYTES } from './client-metadata.document';

/** One fetched document: the body is read up to the size cap (`truncated` past it). */
export interface FetchedDocument {
  status: number;
  contentType: string | undefined;
  cacheControl: string | undefined;
  body: string;
  truncated: boolean;
}

/** Fetches a Client ID Metadata Document; injected so the service is tested without a network. */
export abstract class ClientMetadataFetcher {
  /** Throws `SsrfRefusedError` (possibly as a `cause`) when the guard refuses the target. */
  abstract fetch(url: string): Promise<FetchedDocument>;
}

/** How long one fetch may take in all. */
export const CLIENT_METADATA_FETCH_TIMEOUT_MS = 5_000;

/**
 * The outbound GET of a document (S-164): `https` only, the SSRF guard in the socket's DNS lookup
 * (private, loopback and link-local targets refused unless the host is in `cimd.allowedHosts`), no
 * redirects, a 5 s deadline, 5 KiB at most, and `cimd.caPem` trusted besides the system's CAs.
 */
@Injectable()
export class GuardedClientMetadataFetcher extends ClientMetadataFetcher implements OnModuleDestroy {
  private readonly policy: EgressPolicy;
  private readonly agent: Agent;

  constructor(@Inject(AUTHORIZATION_SERVER_OPTIONS) options: ResolvedAuthorizationServerOptions) {
    super();
    this.policy = { allowedHosts: options.cimd.allowedHosts };
    this.agent = createGuardedAgent(this.policy, {
      ...(options.cimd.caPem ? { caPem: options.cimd.caPem } : {}),
      connectTimeoutMs: CLIENT_METADATA_FETCH_TIMEOUT_MS,
      keepAliveTimeoutMs: 4_000,
    });
  }

  async fetch(url: string): Promise<FetchedDocument> {
    const target = checkOutboundUrl(url, this.policy, ['https:']);
    const signal = AbortSignal.timeout(CLIENT_METADATA_FETCH_TIMEOUT_MS);
    const response = await request(target, {
      method: 'GET',
      headers: { accept: 'application/json' },
      dispatcher: this.agent,
      maxRedirections: 0,
      signal,
      headersTimeout: CLIENT_METADATA_FETCH_TIMEOUT_MS,
      bodyTimeout: CLIENT_METADATA_FETCH_TIMEOUT_MS,
    });
    const { body, truncated } = await readLimitedBody(response.body, MAX_CLIENT_METADATA_BYTES);
    return {
      status: response.statusCode,
      contentType: headerOf(response.headers['content-type']),
      cacheControl: headerOf(response.headers['cache-control']),
      body: body.toString('utf8'),
      truncated,
    };
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close();
  }
}

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
