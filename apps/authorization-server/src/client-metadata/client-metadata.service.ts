import { Injectable, Logger } from '@nestjs/common';
import { Clock, IdSource } from '@mcp-platform/shared-clock';
import { describeOutboundFailure, findSsrfRefusal } from '@mcp-platform/shared-egress';
import { cacheLifetimeSeconds, CLIENT_METADATA_CACHE, isClientMetadataDocumentUrl, parseClientMetadataDocument } from './client-metadata.document';
import { ClientMetadataFetcher, type FetchedDocument } from './client-metadata.fetcher';

/**
 * The outcome of resolving a URL client id: the client's metadata, or why it is refused. `reason` is
 * shown to whoever named the client id: it describes the document (its status, size, type, content),
 * never the network (a failed fetch reads "could not be fetched" with an error id; the log has why).
 */
export type ClientMetadataResult = { ok: true; metadata: Record<string, unknown> } | { ok: false; reason: string };

interface CacheEntry {
  result: ClientMetadataResult;
  expiresAt: number;
}

/** How many documents are cached at most (the oldest entry goes first past it). */
const MAX_CACHE_ENTRIES = 1_000;

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
    private readonly clock: Clock,
    private readonly ids: IdSource,
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
      result = judgeDocument(clientId, fetched);
      if (result.ok) lifetimeSeconds = cacheLifetimeSeconds(fetched.cacheControl);
      else this.logger.warn(`client metadata document ${clientId} refused: ${result.reason}`);
    } catch (error) {
      // Issue 13 item 5: the guard's reason and network errors name hosts and addresses of the operator's
      // network, and the caller may be anyone (no login is needed to name a client id): it gets an
      // error id, the log gets the details under it.
      const errorId = this.ids.newId();
      this.logger.warn(`client metadata document ${clientId} could not be fetched (error id ${errorId}): ${fetchFailureDetail(error)}`);
      result = { ok: false, reason: `the document could not be fetched (error id ${errorId})` };
    }
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

/** The metadata of a fetched document, or what is wrong with it (its status, size, type or content). */
function judgeDocument(clientId: string, fetched: FetchedDocument): ClientMetadataResult {
  if (fetched.status !== 200) return { ok: false, reason: `fetching the document answered HTTP ${fetched.status}` };
  if (fetched.truncated) return { ok: false, reason: 'the document is larger than 5 KiB' };
  if (fetched.contentType !== undefined && !/^application\/([\w.+-]+\+)?json\b/i.test(fetched.contentType)) {
    return { ok: false, reason: `the document's content type is ${fetched.contentType}, not application/json` };
  }
  return parseClientMetadataDocument(clientId, fetched.body);
}

/**
 * Why a fetch failed, for the log: the guard's reason (with the setting that exempts a host on the
 * operator's network), or the network error and its causes (DNS, connection, TLS, timeout).
 */
function fetchFailureDetail(error: unknown): string {
  const refusal = findSsrfRefusal(error);
  if (refusal) {
    return refusal.reason === 'non_public_address'
      ? `refused by the SSRF guard: ${refusal.message} (a host on the operator's own network must be listed in CIMD_ALLOWED_HOSTS)`
      : `refused by the SSRF guard: ${refusal.message}`;
  }
  return describeOutboundFailure(error);
}
