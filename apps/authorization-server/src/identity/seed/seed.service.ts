import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { BASELINE_SCOPE } from '@mcp-platform/protocol-mcp';
import { IdSource } from '@mcp-platform/shared-clock';
import { AUTHORIZATION_SERVER_OPTIONS } from '../../authorization-server.constants';
import type { ResolvedAuthorizationServerOptions } from '../../authorization-server.options';
import { MEMBER_ROLE } from '../identity.types';
import { builtInRoles } from '../roles/built-in-roles';
import { TenantsRepository } from '../tenants/tenants.repository';
import { PasswordHasher } from '../users/password-hasher';
import { assertPasswordPolicy, assertUsername, normalizeUsername } from '../users/password-policy';
import { UsersRepository } from '../users/users.repository';

/** The tenants every fresh install starts with, matching the tool executor's seed catalog. */
export const SEED_TENANTS: ReadonlyArray<{ slug: string; name: string; memberScopes: string[]; memberScopeDescriptions?: Record<string, string> }> = [
  {
    slug: 'demo',
    name: 'Demo',
    memberScopes: [BASELINE_SCOPE, 'demo'],
    // What the demo server's step-up scope unlocks, in words the consent page shows.
    memberScopeDescriptions: { 'demo:crypto': 'Compute cryptographic hashes of text you give it (the hash_text tool).' },
  },
  { slug: 'conformance', name: 'Conformance', memberScopes: [BASELINE_SCOPE] },
];

/** The seeded user of tenant `demo`, with role `member`. */
export const DEMO_USERNAME = 'demo';

/**
 * Writes the seed at boot, idempotently: tenants `demo` and `conformance` with their built-in
 * roles, the `demo` user (whose password becomes the configured one when it is not already, so the
 * one the operator was shown works), and a platform administrator when one is configured and none exists. The tool
 * executor seeds its own catalog of these tenants; nothing is asked of it here. Records that exist are
 * left as administrators changed them, apart from the demo password.
 */
@Injectable()
export class SeedService implements OnModuleInit {
  private readonly logger = new Logger(SeedService.name);

  constructor(
    private readonly tenants: TenantsRepository,
    private readonly users: UsersRepository,
    private readonly hasher: PasswordHasher,
    private readonly ids: IdSource,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: ResolvedAuthorizationServerOptions,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.seed();
  }

  async seed(): Promise<void> {
    const { seed, bootstrapAdmin } = this.options;
    if (seed) {
      for (const tenant of SEED_TENANTS) {
        if (await this.tenants.insertWithRoles({ slug: tenant.slug, name: tenant.name }, builtInRoles(tenant.memberScopes, tenant.memberScopeDescriptions))) {
          this.logger.debug(`seeded tenant ${tenant.slug}`);
        }
      }
      await this.seedDemoUser(seed.demoUserPassword);
      if (seed.logDemoUserPassword)
        this.logger.warn(
          `demo user: username "${DEMO_USERNAME}", password "${seed.demoUserPassword}" (generated at boot; set DEMO_USER_PASSWORD to choose it)`,
        );
    }
    if (bootstrapAdmin) await this.seedPlatformAdmin(bootstrapAdmin.username, bootstrapAdmin.password);
  }

  private async seedDemoUser(password: string): Promise<void> {
    assertPasswordPolicy(password);
    const existing = await this.users.findByUsername(DEMO_USERNAME);
    if (existing) {
      // A restart with the same password (kept in the embedded data directory, or configured) changes
      // nothing; a different configured password replaces the stored one, so the one printed signs in.
      if (await this.hasher.verify(existing.passwordHash, password)) return;
      await this.users.setPasswordHash(existing.account.id, await this.hasher.hash(password));
      this.logger.log(`the demo user's password was set to the configured one`);
      return;
    }
    const passwordHash = await this.hasher.hash(password);
    const inserted = await this.users.insert({
      id: this.ids.newId(),
      username: DEMO_USERNAME,
      passwordHash,
      tenant: 'demo',
      platformAdmin: false,
      roles: [MEMBER_ROLE],
    });
    if (inserted) this.logger.debug(`seeded user ${DEMO_USERNAME}`);
  }

  private async seedPlatformAdmin(rawUsername: string, password: string): Promise<void> {
    if (await this.users.anotherActivePlatformAdminExists()) return;
    const username = normalizeUsername(rawUsername);
    assertUsername(username);
    assertPasswordPolicy(password);
    const inserted = await this.users.insert({
      id: this.ids.newId(),
      username,
      passwordHash: await this.hasher.hash(password),
      tenant: null,
      platformAdmin: true,
      roles: [],
    });
    if (inserted) this.logger.log(`created platform admin ${username}`);
    else this.logger.warn(`no enabled platform admin exists, and username ${username} is taken by another user: no platform admin was created`);
  }
}
