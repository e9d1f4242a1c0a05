import { Module } from '@nestjs/common';
import { IdSource, RandomIds } from '@mcp-platform/shared-clock';
import { RevocationsModule } from '../revocations/revocations.module';
import { RolesRepository } from './roles/roles.repository';
import { RolesService } from './roles/roles.service';
import { SeedService } from './seed/seed.service';
import { TenantsRepository } from './tenants/tenants.repository';
import { TenantsService } from './tenants/tenants.service';
import { Argon2PasswordHasher, PasswordHasher } from './users/password-hasher';
import { UsersRepository } from './users/users.repository';
import { UsersService } from './users/users.service';

/**
 * Identity, one feature: tenants, their users and roles, and the seed written at boot (when the options
 * ask for it). Its tables and repositories stay inside; other features use the services it exports.
 * Needs the app's connection (`PersistenceModule.forApp`), its options and `MessageBus` (tenants are
 * mirrored in the tool executor).
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
    SeedService,
    { provide: PasswordHasher, useFactory: () => new Argon2PasswordHasher() },
    { provide: IdSource, useClass: RandomIds },
  ],
  exports: [TenantsService, UsersService, RolesService],
})
export class IdentityModule {}
