import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { ClientsService, type OAuthClient } from '../clients/clients.service';
import type { ClientListSchema, ClientView, CreateClientBody, CreatedClientView } from './clients-admin.schemas';

/**
 * The tenant's pre-registered OAuth clients in the admin API's terms (RFC 7591 names). The rules stay
 * in `ClientsService`; its `IdentityError`s pass through to the error mapper.
 */
@Injectable()
export class ClientsAdminService {
  constructor(private readonly clients: ClientsService) {}

  async list(tenant: string): Promise<z.output<typeof ClientListSchema>> {
    return { clients: (await this.clients.list(tenant)).map((client) => clientView(tenant, client)) };
  }

  async get(tenant: string, clientId: string): Promise<ClientView> {
    return clientView(tenant, await this.clients.get(tenant, clientId));
  }

  /** Registers the client; the secret of a confidential client is in this answer and nowhere else. */
  async create(tenant: string, body: CreateClientBody): Promise<CreatedClientView> {
    const { client, clientSecret } = await this.clients.create(tenant, body);
    return { ...clientView(tenant, client), ...(clientSecret === undefined ? {} : { client_secret: clientSecret, client_secret_expires_at: 0 as const }) };
  }

  delete(tenant: string, clientId: string): Promise<void> {
    return this.clients.delete(tenant, clientId);
  }
}

function clientView(tenant: string, client: OAuthClient): ClientView {
  return {
    client_id: client.clientId,
    tenant: client.tenant ?? tenant,
    client_name: client.clientName,
    redirect_uris: client.redirectUris,
    grant_types: client.grantTypes,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    application_type: client.applicationType,
    ...(client.scope === undefined ? {} : { scope: client.scope }),
    client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
  };
}
