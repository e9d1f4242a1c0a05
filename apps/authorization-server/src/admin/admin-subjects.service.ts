import { Injectable } from '@nestjs/common';
import type { RevocableToken } from '@mcp-platform/shared-auth';
import { ClientsService } from '../clients/clients.service';
import { TENANT_ADMIN_ROLE } from '../identity/identity.types';
import { UsersService } from '../identity/users/users.service';
import { AccessRevocations } from '../revocations/access-revocations.service';
import { type CurrentAdminRights, PLATFORM_ADMIN_ROLE } from './admin-access';

/**
 * Looks up what the subject of an admin token is now (an abstract class, so the guard's unit tests
 * can answer without a database).
 */
export abstract class AdminSubjects {
  /**
   * The current rights of the token's subject; `undefined` when the token was revoked (its user or
   * tenant was disabled or deleted since it was issued, even if enabled again), or the subject is
   * neither an enabled user of an enabled tenant (or a platform administrator) nor a tenant's
   * automation client that may still administer it.
   */
  abstract currentRights(token: RevocableToken): Promise<CurrentAdminRights | undefined>;
}

/**
 * `AdminSubjects` from the revocations, users and clients tables: the same roles the token endpoint
 * would put in a new admin token. A user's token names the user; a tenant's automation client's token (client
 * credentials) names the client, which counts as a tenant administrator of its tenant while it exists,
 * keeps the `admin` scope, and its tenant is enabled.
 */
@Injectable()
export class UsersAdminSubjects extends AdminSubjects {
  constructor(
    private readonly users: UsersService,
    private readonly clients: ClientsService,
    private readonly revocations: AccessRevocations,
  ) {
    super();
  }

  async currentRights(token: RevocableToken): Promise<CurrentAdminRights | undefined> {
    if (await this.revocations.isRevoked(token)) return undefined;
    const subject = token.subject;
    const user = await this.users.findById(subject);
    if (!user) {
      const tenant = await this.clients.administeredTenant(subject);
      return tenant === undefined ? undefined : { tenant, roles: [TENANT_ADMIN_ROLE] };
    }
    if (!(await this.users.isActive(subject))) return undefined;
    const roles: string[] = [];
    if (user.platformAdmin) roles.push(PLATFORM_ADMIN_ROLE);
    if (user.tenant !== null && user.roles.includes(TENANT_ADMIN_ROLE)) roles.push(TENANT_ADMIN_ROLE);
    return { tenant: user.tenant ?? undefined, roles };
  }
}
