import { CreateOAuthClients1767398400001 } from './clients/migrations/1767398400001-CreateOAuthClients';
import { OAuthClientEntity } from './clients/oauth-client.entity';
import { CreateIdentity1767312000000 } from './identity/migrations/1767312000000-CreateIdentity';
import { AddRoleScopeDescriptions1767571200000 } from './identity/roles/migrations/1767571200000-AddRoleScopeDescriptions';
import { RoleEntity } from './identity/roles/role.entity';
import { TenantEntity } from './identity/tenants/tenant.entity';
import { UserEntity } from './identity/users/user.entity';
import { UserRoleEntity } from './identity/users/user-role.entity';
import { CreateOAuthRecords1767398400000 } from './oauth/migrations/1767398400000-CreateOAuthRecords';
import { OAuthSecretEntity } from './oauth/oauth-secret.entity';
import { OidcRecordEntity } from './oidc-records/oidc-record.entity';
import { CreateRevocations1767571200002 } from './revocations/migrations/1767571200002-CreateRevocations';
import { RevocationEntity } from './revocations/revocation.entity';
import { SigningKeyEntity } from './signing-keys/signing-key.entity';
import { CreateSignInAttempts1767571200001 } from './throttling/migrations/1767571200001-CreateSignInAttempts';
import { SignInAttemptEntity } from './throttling/sign-in-attempt.entity';

/**
 * The explicit entity list of the authorization server's DataSource (STYLE.md §7). Each feature adds
 * its entities here.
 */
export const AUTHORIZATION_SERVER_ENTITIES = [
  TenantEntity,
  UserEntity,
  RoleEntity,
  UserRoleEntity,
  SigningKeyEntity,
  OidcRecordEntity,
  OAuthSecretEntity,
  OAuthClientEntity,
  SignInAttemptEntity,
  RevocationEntity,
];

/** The committed migrations of every feature, in timestamp order. */
export const AUTHORIZATION_SERVER_MIGRATIONS = [
  CreateIdentity1767312000000,
  CreateOAuthRecords1767398400000,
  CreateOAuthClients1767398400001,
  AddRoleScopeDescriptions1767571200000,
  CreateSignInAttempts1767571200001,
  CreateRevocations1767571200002,
];
