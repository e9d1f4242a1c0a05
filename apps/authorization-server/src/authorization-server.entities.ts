import { CreateIdentity1767312000000 } from './identity/migrations/1767312000000-CreateIdentity';
import { RoleEntity } from './roles/role.entity';
import { SigningKeyEntity } from './signing-keys/signing-key.entity';
import { TenantEntity } from './tenants/tenant.entity';
import { UserRoleEntity } from './users/user-role.entity';
import { UserEntity } from './users/user.entity';

/**
 * The explicit entity list of the authorization server's DataSource (STYLE.md §7). Each feature adds
 * its entities here (D7).
 */
export const AUTHORIZATION_SERVER_ENTITIES = [TenantEntity, UserEntity, RoleEntity, UserRoleEntity, SigningKeyEntity];

/** The committed migrations of every feature, in timestamp order (D7). */
export const AUTHORIZATION_SERVER_MIGRATIONS = [CreateIdentity1767312000000];
