import type { Adapter, AdapterPayload } from 'oidc-provider' with { 'resolution-mode': 'import' };
import type { ClientMetadataService } from '../client-metadata/client-metadata.service';
import type { ClientsService } from '../clients/clients.service';

/**
 * oidc-provider's storage of the `Client` model. A URL-shaped client id is a Client ID Metadata
 * Document (fetched, validated, cached); any other id is a stored client (pre-registered or DCR).
 * `refuse` builds the provider's `invalid_client` error, so a refused document's reason reaches the
 * client (or the error page) instead of a bare "client not found".
 */
export class ClientStoreAdapter implements Adapter {
  constructor(
    private readonly clients: ClientsService,
    private readonly documents: ClientMetadataService,
    private readonly refuse: (description: string) => Error,
  ) {}

  async find(id: string): Promise<AdapterPayload | undefined> {
    if (this.documents.isDocumentUrl(id)) {
      const result = await this.documents.resolve(id);
      if (!result.ok) throw this.refuse(`client metadata document refused: ${result.reason}`);
      return result.metadata as AdapterPayload;
    }
    return (await this.clients.providerMetadata(id)) as AdapterPayload | undefined;
  }

  /** Dynamic Client Registration (RFC 7591) stores what the provider accepted. */
  async upsert(id: string, payload: AdapterPayload): Promise<void> {
    if (this.documents.isDocumentUrl(id)) throw this.refuse('a URL-shaped client id is reserved for Client ID Metadata Documents');
    await this.clients.saveRegistered(id, payload as Record<string, unknown>);
  }

  async destroy(id: string): Promise<void> {
    await this.clients.deleteRegistered(id);
  }

  // Clients have no uid, user code, consumption or grant: the provider never calls these for them.
  async findByUid(): Promise<undefined> {
    return undefined;
  }

  async findByUserCode(): Promise<undefined> {
    return undefined;
  }

  async consume(): Promise<void> {}

  async revokeByGrantId(): Promise<void> {}
}
