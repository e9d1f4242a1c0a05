import type { EntityManager } from 'typeorm';
import { ResourceEntity } from '../resources/resource.entity';

/**
 * Serializes the content writes of one tenant (a JSON put, an upload's commit) for the rest of the
 * transaction, so two concurrent writes cannot both squeeze under the quota.
 */
export async function lockTenantQuota(manager: EntityManager, tenant: string): Promise<void> {
  await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`resource-store:quota:${tenant}`]);
}

/** Bytes of content the tenant stores, the resource at `uri` excluded (a write replaces it). */
export async function tenantBytesExcept(manager: EntityManager, tenant: string, uri: string): Promise<number> {
  const row = await manager
    .getRepository(ResourceEntity)
    .createQueryBuilder('r')
    .select('COALESCE(SUM(r.size), 0)', 'used')
    .where('r.tenant = :tenant', { tenant })
    .andWhere('r.uri <> :uri', { uri })
    .getRawOne<{ used: string | number }>();
  return Number(row?.used ?? 0);
}
