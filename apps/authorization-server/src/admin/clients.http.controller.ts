import { Delete, Get, Post } from '@nestjs/common';
import { AdminController, AdminRoute, ZodBody, ZodParam } from './admin-openapi.decorators';
import {
  ClientIdSchema,
  ClientListSchema,
  ClientViewSchema,
  type CreateClientBody,
  CreateClientBodySchema,
  CreatedClientSchema,
} from './clients-admin.schemas';
import { ClientsAdminService } from './clients-admin.service';
import { TenantSlugSchema } from './identity-admin.schemas';

/** A tenant's pre-registered OAuth clients (S-169); dynamically registered and CIMD clients are not listed here. */
@AdminController({ path: 'tenants/:tenant/clients', tag: 'clients', access: 'tenant' })
export class ClientsHttpController {
  constructor(private readonly clients: ClientsAdminService) {}

  @Get()
  @AdminRoute({ operationId: 'listClients', summary: "List the tenant's pre-registered OAuth clients", response: ClientListSchema, errors: [404] })
  list(@ZodParam('tenant', TenantSlugSchema) tenant: string) {
    return this.clients.list(tenant);
  }

  @Post()
  @AdminRoute({
    operationId: 'createClient',
    summary: 'Register an OAuth client for the tenant',
    description:
      'Redirect URIs are matched exactly; they must be `https`, or `http` on a loopback host (a native client may also use a private-use scheme such as `com.example.app:/callback`). A confidential client (`client_secret_basic`, `client_secret_post`) gets `client_secret` in this answer only: it is stored as a hash and never shown again.',
    status: 201,
    response: CreatedClientSchema,
    errors: [404],
  })
  create(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodBody(CreateClientBodySchema) body: CreateClientBody) {
    return this.clients.create(tenant, body);
  }

  @Get(':clientId')
  @AdminRoute({ operationId: 'getClient', summary: 'Get an OAuth client (without its secret)', response: ClientViewSchema, errors: [404] })
  get(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('clientId', ClientIdSchema) clientId: string) {
    return this.clients.get(tenant, clientId);
  }

  @Delete(':clientId')
  @AdminRoute({ operationId: 'deleteClient', summary: 'Delete an OAuth client and revoke its grants and refresh tokens', status: 204, errors: [404] })
  delete(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('clientId', ClientIdSchema) clientId: string) {
    return this.clients.delete(tenant, clientId);
  }
}
