import { Injectable, Logger } from '@nestjs/common';
import { findSsrfRefusal } from '@mcp-platform/shared-egress';
import { CLIENT_METADATA_CACHE, cacheLifetimeSeconds, isClientMetadataDocumentUrl, parseClientMetadataDocument } from './client-metadata.document';
import { ClientMetadataFetcher } from './client-metadata.fetcher';

/** The outcome of resolving a URL client id: the client's metadata, or why it is refused. */
export type ClientMetadataResult = { ok: true; metadata: Record<string, unknown> } | { ok: false; reason: string };

interface CacheEntry {
  result: ClientMetadataResult;
  expiresAt: number;
}

/** How many documents are cached at most (the oldest entry goes first past it). */
const MAX_CACHE_ENTRIES = 1_000;

/** The clock of the cache, injected so tests move time. */
export abstract class ClientMetadataClock {
  abstract now(): number;
}

/** `Date.now()`. */
@Injectable()
export class SystemClientMetadataClock extends ClientMetadataClock {
  now(): number {
    return Date.now();
  }
}

/**
 * Client ID Metadata Documents (S-162..S-165): the client of a URL-shaped `client_id` is what
 * the document at that URL says, once fetched through the SSRF guard and validated. Results are
 * cached per `Cache-Control` (bounded), refusals briefly, and concurrent look-ups of one URL share
 * one fetch.
 */
@Injectable()
export class ClientMetadataService {
  private readonly logger = new Logger(ClientMetadataService.name);
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inFlight = new Map<string, Promise<ClientMetadataResult>>();

  constructor(
    private readonly fetcher: ClientMetadataFetcher,
    private readonly clock: ClientMetadataClock,
  ) {}

  /** Whether the client id is a document URL (anything else is looked up among stored clients). */
  isDocumentUrl(clientId: string): boolean {
    return isClientMetadataDocumentUrl(clientId);
  }

  /** The client's metadata from its document, or why it cannot be used. */
  async resolve(clientId: string): Promise<ClientMetadataResult> {
    if (!isClientMetadataDocumentUrl(clientId)) return { ok: false, reason: 'a client id metadata document URL is an https URL with a path' };
    const cached = this.cache.get(clientId);
    if (cached && cached.expiresAt > this.clock.now()) return cached.result;
    let pending = this.inFlight.get(clientId);
    if (!pending) {
      pending = this.fetchAndValidate(clientId).finally(() => this.inFlight.delete(clientId));
      this.inFlight.set(clientId, pending);
    }
    return pending;
  }

  private async fetchAndValidate(clientId: string): Promise<ClientMetadataResult> {
    let result: ClientMetadataResult;
    let lifetimeSeconds: number = CLIENT_METADATA_CACHE.negativeSeconds;
    try {
      const fetched = await this.fetcher.fetch(clientId);
      if (fetched.status !== 200) {
        result = { ok: false, reason: `fetching the document answered HTTP ${fetched.status}` };
      } else if (fetched.truncated) {
        result = { ok: false, reason: 'the document is larger than 5 KiB' };
      } else if (fetched.contentType !== undefined && !/^application\/([\w.+-]+\+)?json\b/i.test(fetched.contentType)) {
        result = { ok: false, reason: `the document's content type is ${fetched.contentType}, not application/json` };
      } else {
        result = parseClientMetadataDocument(clientId, fetched.body);
        if (result.ok) lifetimeSeconds = cacheLifetimeSeconds(fetched.cacheControl);
      }
    } catch (error) {
      const refusal = findSsrfRefusal(error);
      result = { ok: false, reason: refusal ? `the document URL is refused: ${refusal.message}` : `the document could not be fetched: ${(error as Error).message}` };
    }
    if (!result.ok) this.logger.warn(`client metadata document ${clientId} refused: ${result.reason}`);
    this.remember(clientId, result, lifetimeSeconds);
    return result;
  }

  private remember(clientId: string, result: ClientMetadataResult, lifetimeSeconds: number): void {
    this.cache.delete(clientId);
    if (this.cache.size >= MAX_CACHE_ENTRIES) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(clientId, { result, expiresAt: this.clock.now() + lifetimeSeconds * 1000 });
  }
}
