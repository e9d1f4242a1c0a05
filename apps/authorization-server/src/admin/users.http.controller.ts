import { Delete, Get, Patch, Post } from '@nestjs/common';
import type { AdminPrincipal } from './admin-access';
import { Actor } from './admin-auth.guard';
import { AdminController, AdminRoute, ZodBody, ZodParam } from './admin-openapi.decorators';
import {
  type CreateUserBody,
  CreateUserBodySchema,
  TenantSlugSchema,
  type UpdateUserBody,
  UpdateUserBodySchema,
  UserIdSchema,
  UserListSchema,
  UserViewSchema,
} from './identity-admin.schemas';
import { IdentityAdminService } from './identity-admin.service';

/** A tenant's users (who can sign in, with which roles). Passwords go in, never come out. */
@AdminController({ path: 'tenants/:tenant/users', tag: 'users', access: 'tenant' })
export class UsersHttpController {
  constructor(private readonly identity: IdentityAdminService) {}

  @Get()
  @AdminRoute({ operationId: 'listUsers', summary: "List the tenant's users", response: UserListSchema, errors: [404] })
  list(@ZodParam('tenant', TenantSlugSchema) tenant: string) {
    return this.identity.listUsers(tenant);
  }

  @Post()
  @AdminRoute({
    operationId: 'createUser',
    summary: 'Create a user in the tenant',
    description: 'The password must satisfy the password policy (at least 12 characters). Usernames are unique across the platform.',
    status: 201,
    response: UserViewSchema,
    errors: [404, 409],
  })
  create(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodBody(CreateUserBodySchema) body: CreateUserBody) {
    return this.identity.createUser(tenant, body);
  }

  @Get(':id')
  @AdminRoute({ operationId: 'getUser', summary: 'Get a user', response: UserViewSchema, errors: [404] })
  get(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('id', UserIdSchema) id: string) {
    return this.identity.getUser(tenant, id);
  }

  @Patch(':id')
  @AdminRoute({ operationId: 'updateUser', summary: "Change a user's password, roles or disabled state", response: UserViewSchema, errors: [404, 409] })
  update(
    @ZodParam('tenant', TenantSlugSchema) tenant: string,
    @ZodParam('id', UserIdSchema) id: string,
    @ZodBody(UpdateUserBodySchema) body: UpdateUserBody,
    @Actor() actor: AdminPrincipal,
  ) {
    return this.identity.updateUser(tenant, id, body, actor);
  }

  @Delete(':id')
  @AdminRoute({ operationId: 'deleteUser', summary: 'Delete a user', status: 204, errors: [404, 409] })
  delete(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('id', UserIdSchema) id: string, @Actor() actor: AdminPrincipal) {
    return this.identity.deleteUser(tenant, id, actor);
  }
}
