import { Module } from '@nestjs/common';
import { RevocationsModule } from '../revocations/revocations.module';
import { RolesRepository } from '../roles/roles.repository';
import { RolesService } from '../roles/roles.service';
import { TenantsRepository } from '../tenants/tenants.repository';
import { TenantsService } from '../tenants/tenants.service';
import { Argon2PasswordHasher, PasswordHasher } from '../users/password-hasher';
import { UsersRepository } from '../users/users.repository';
import { UsersService } from '../users/users.service';

/**
 * Tenants, users and roles: their tables, repositories and services. Needs the app's connection
 * (`PersistenceModule.forApp`) and `MessageBus` (tenants are mirrored in the tool executor).
 */
@Module({
  imports: [RevocationsModule],
  providers: [
    TenantsRepository,
    UsersRepository,
    RolesRepository,
    TenantsService,
    UsersService,
    RolesService,
    { provide: PasswordHasher, useFactory: () => new Argon2PasswordHasher() },
  ],
  exports: [TenantsService, UsersService, RolesService, TenantsRepository, UsersRepository, RolesRepository, PasswordHasher],
})
export class IdentityModule {}
