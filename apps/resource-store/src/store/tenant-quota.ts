import type { EntityManager } from 'typeorm';
import { ResourceEntity } from '../resources/resource.entity';

/**
 * Serializes the content writes of one tenant (a JSON put, an upload's commit) for the rest of the
 * transaction, so two concurrent writes cannot both squeeze under the quota.
 */
export async function lockTenantQuota(manager: EntityManager, tenant: string): Promise<void> {
  await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`resource-store:quota:${tenant}`]);
}

/**
 * Bytes of content the tenant stores, without what a write replaces: the resource at `uri`, or the
 * files of the skill `skill`.
 */
export async function tenantBytesExcept(manager: EntityManager, tenant: string, replaced: { uri: string } | { skill: string }): Promise<number> {
  const query = manager
    .getRepository(ResourceEntity)
    .createQueryBuilder('r')
    .select('COALESCE(SUM(r.size), 0)', 'used')
    .where('r.tenant = :tenant', { tenant });
  if ('uri' in replaced) query.andWhere('r.uri <> :uri', { uri: replaced.uri });
  else query.andWhere('r.skill IS DISTINCT FROM :skill', { skill: replaced.skill });
  const row = await query.getRawOne<{ used: string | number }>();
  return Number(row?.used ?? 0);
}
