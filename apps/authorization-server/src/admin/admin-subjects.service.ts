import { Injectable } from '@nestjs/common';
import { TENANT_ADMIN_ROLE } from '../identity/identity.types';
import { UsersService } from '../users/users.service';
import { PLATFORM_ADMIN_ROLE, type CurrentAdminRights } from './admin-access';

/**
 * Looks up what the subject of an admin token is now (an abstract class, so the guard's unit tests
 * can answer without a database).
 */
export abstract class AdminSubjects {
  /** The subject's current rights; `undefined` when it is no user, or a disabled one (or of a disabled tenant). */
  abstract currentRights(subject: string): Promise<CurrentAdminRights | undefined>;
}

/** `AdminSubjects` from the users table: the same roles the token endpoint would put in a new admin token. */
@Injectable()
export class UsersAdminSubjects extends AdminSubjects {
  constructor(private readonly users: UsersService) {
    super();
  }

  async currentRights(subject: string): Promise<CurrentAdminRights | undefined> {
    const user = await this.users.findById(subject);
    if (!user || !(await this.users.isActive(subject))) return undefined;
    const roles: string[] = [];
    if (user.platformAdmin) roles.push(PLATFORM_ADMIN_ROLE);
    if (user.tenant !== null && user.roles.includes(TENANT_ADMIN_ROLE)) roles.push(TENANT_ADMIN_ROLE);
    return { tenant: user.tenant ?? undefined, roles };
  }
}
