import { randomUUID } from 'node:crypto';
import type { DeepPartial, ObjectLiteral, Repository, SelectQueryBuilder } from 'typeorm';
import type { UpstreamOrigin } from './store.types';

/**
 * What the store's repositories do alike to their tenant-keyed rows (resources by `uri`, templates and
 * prompts by `name`): write one by its key, delete one, select what a virtual server exposes, page a list.
 */

/** Whether a write created the row or replaced it. */
export type WriteOutcome = 'created' | 'updated';

/**
 * Creates the tenant's row with this key, or replaces the one that has it (its id stays). Never an
 * upstream item's row (the services refuse those first; a row an upstream put takes in between makes
 * the insert fail on the unique key rather than turn the upstream row into the tenant's own).
 */
export async function upsertByKey<T extends ObjectLiteral & { id: string; tenant: string }>(
  repository: Repository<T>,
  tenant: string,
  key: { uri: string } | { name: string },
  values: DeepPartial<T>,
): Promise<WriteOutcome> {
  const [column, value] = Object.entries(key)[0] as [string, string];
  const existing = await repository
    .createQueryBuilder('row')
    .select('row.id', 'id')
    .where('row.tenant = :tenant', { tenant })
    .andWhere(`row.${column} = :value`, { value })
    .andWhere('row.upstream IS NULL')
    .getRawOne<{ id: string }>();
  if (existing) {
    await repository.save({ ...values, id: existing.id } as DeepPartial<T>);
    return 'updated';
  }
  await repository.save({ ...values, ...key, id: randomUUID(), tenant } as DeepPartial<T>);
  return 'created';
}

/** Deletes one of the tenant's own rows by its key (never an upstream item's); the `servers` it had, or `undefined` when there was none. */
export async function deleteReturningServers<T extends ObjectLiteral & { servers: string[] }>(
  repository: Repository<T>,
  tenant: string,
  key: { uri: string } | { name: string },
): Promise<string[] | undefined> {
  const [column, value] = Object.entries(key)[0] as [string, string];
  const result = await repository
    .createQueryBuilder()
    .delete()
    .where('tenant = :tenant', { tenant })
    .andWhere(`${column} = :value`, { value })
    .andWhere('upstream IS NULL')
    .returning('servers')
    .execute();
  const rows = (result.raw ?? []) as Array<{ servers: string[] }>;
  return rows[0]?.servers;
}

/** The origin of the tenant's upstream item with this key, or `undefined` when there is none (none, or the tenant's own). */
export async function upstreamOriginOf<T extends ObjectLiteral & { upstream: UpstreamOrigin | null }>(
  repository: Repository<T>,
  tenant: string,
  key: { uri: string } | { name: string },
): Promise<UpstreamOrigin | undefined> {
  const [column, value] = Object.entries(key)[0] as [string, string];
  const row = await repository
    .createQueryBuilder('row')
    .select('row.upstream', 'upstream')
    .where('row.tenant = :tenant', { tenant })
    .andWhere(`row.${column} = :value`, { value })
    .andWhere('row.upstream IS NOT NULL')
    .getRawOne<{ upstream: UpstreamOrigin }>();
  return row?.upstream ?? undefined;
}

/** Rows of `tenant` that `server` exposes (an empty `servers` array: every server of the tenant). */
export function onServer<T extends ObjectLiteral>(query: SelectQueryBuilder<T>, tenant: string, server: string): SelectQueryBuilder<T> {
  const alias = query.alias;
  return query
    .where(`${alias}.tenant = :tenant`, { tenant })
    .andWhere(`(${alias}.servers = '[]'::jsonb OR ${alias}.servers @> CAST(:serverList AS jsonb))`, { serverList: JSON.stringify([server]) });
}

/** Keyset pagination: `limit` rows after `after` in `key` order (keys are `COLLATE "C"` columns: byte order, the same on every database). */
export function page<T extends ObjectLiteral>(query: SelectQueryBuilder<T>, key: string, after: string | undefined, limit: number): SelectQueryBuilder<T> {
  if (after !== undefined) query.andWhere(`${key} > :after`, { after });
  return query.orderBy(`${key}`, 'ASC').take(limit);
}

/** `{ [key]: value }`, or nothing when the column is null: a domain type has no `null` members. */
export function optional<K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } {
  return (value === null || value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
