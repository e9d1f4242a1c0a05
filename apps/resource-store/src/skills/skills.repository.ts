import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull } from 'typeorm';
import { RESOURCE_STORE_CONNECTION } from '../resource-store.constants';
import { SKILL_URI_SCHEME } from '../resources/reserved-uris';
import { ResourceEntity } from '../resources/resource.entity';
import { onServer, type WriteOutcome } from '../store/rows';
import type { JsonObject } from '../store/store.types';
import { lockTenantQuota, tenantBytesExcept } from '../store/tenant-quota';
import { SkillEntity, type SkillFileRecord } from './skill.entity';
import { SKILL_MD, type ValidatedSkill } from './skill-manifest';
import { skillFileUri } from './skill-uris';

/** What writing a skill did. `changedUris`: files replaced with other bytes or removed (their subscribers hear it). */
export type SkillWrite =
  | { kind: 'written'; outcome: WriteOutcome; servers: string[]; previousServers: string[] | undefined; changedUris: string[] }
  | { kind: 'over-quota'; usedBytes: number }
  | { kind: 'uri-taken'; uri: string };

/**
 * The tenant's skills: a `skills` row per skill (frontmatter, manifest, servers) and a resource row
 * per file at `skill://<name>/<path>`, marked with the skill's name, written and removed together in
 * one transaction. Every query names its tenant; the MCP side also names the virtual server (a skill
 * with `servers = []` is on every server of its tenant).
 */
@Injectable()
export class SkillsRepository {
  constructor(@InjectDataSource(RESOURCE_STORE_CONNECTION) private readonly dataSource: DataSource) {}

  /** Up to `limit` skills the server serves after `after` (by name). */
  async listServerSkills(tenant: string, server: string, after: string | undefined, limit: number): Promise<SkillEntity[]> {
    const query = onServer(this.dataSource.getRepository(SkillEntity).createQueryBuilder('s'), tenant, server);
    if (after !== undefined) query.andWhere('s.name > :after', { after });
    return query.orderBy('s.name', 'ASC').take(limit).getMany();
  }

  /** The skill `name` if the server serves it. */
  async findServerSkill(tenant: string, server: string, name: string): Promise<SkillEntity | undefined> {
    const row = await onServer(this.dataSource.getRepository(SkillEntity).createQueryBuilder('s'), tenant, server)
      .andWhere('s.name = :name', { name })
      .getOne();
    return row ?? undefined;
  }

  /**
   * The skill the server serves whose root `uri` is or is inside: the one with the longest skill path
   * that prefixes it (an upstream skill's path may have several segments; the tenant's own have one).
   */
  async findServerSkillOwning(tenant: string, server: string, uri: string): Promise<SkillEntity | undefined> {
    if (!uri.startsWith(SKILL_URI_SCHEME)) return undefined;
    const segments = uri.slice(SKILL_URI_SCHEME.length).split('/');
    const paths = segments.slice(0, 32).map((_, index) => segments.slice(0, index + 1).join('/'));
    const rows = await onServer(this.dataSource.getRepository(SkillEntity).createQueryBuilder('s'), tenant, server)
      .andWhere('s.name IN (:...paths)', { paths })
      .getMany();
    return rows.sort((a, b) => b.name.length - a.name.length)[0];
  }

  /** The skill `name`, the tenant's own or an upstream source's. */
  async findTenantSkill(tenant: string, name: string): Promise<SkillEntity | undefined> {
    return (await this.dataSource.getRepository(SkillEntity).findOneBy({ tenant, name })) ?? undefined;
  }

  /** The tenant's own skills (an upstream source's are the executor's to show). */
  async tenantSkills(tenant: string): Promise<SkillEntity[]> {
    return this.dataSource.getRepository(SkillEntity).find({ where: { tenant, upstream: IsNull() }, order: { name: 'ASC' } });
  }

  /**
   * Creates or replaces the skill and its files, under the tenant's quota lock: the skill's old files
   * do not count against the new ones. `servers` absent keeps a replaced skill's (a new one: every
   * server). Refused when a plain resource already holds one of its URIs.
   */
  async writeSkillWithin(tenant: string, skill: ValidatedSkill, servers: string[] | undefined, quotaBytes: number): Promise<SkillWrite> {
    return this.dataSource.transaction(async (manager) => {
      await lockTenantQuota(manager, tenant);
      const existing = await manager
        .getRepository(SkillEntity)
        .createQueryBuilder('s')
        .setLock('pessimistic_write')
        .where('s.tenant = :tenant AND s.name = :name', { tenant, name: skill.name })
        .getOne();
      const taken = await manager
        .getRepository(ResourceEntity)
        .createQueryBuilder('r')
        .select('r.uri', 'uri')
        .where('r.tenant = :tenant', { tenant })
        .andWhere('r.uri IN (:...uris)', { uris: skill.files.map((file) => skillFileUri(skill.name, file.path)) })
        .andWhere('r.skill IS DISTINCT FROM :name', { name: skill.name })
        .limit(1)
        .getRawOne<{ uri: string }>();
      if (taken) return { kind: 'uri-taken', uri: taken.uri };
      const usedBytes = await tenantBytesExcept(manager, tenant, { skill: skill.name });
      if (usedBytes + skill.size > quotaBytes) return { kind: 'over-quota', usedBytes };

      const effectiveServers = servers ?? existing?.servers ?? [];
      const previousDigests = new Map((existing?.files ?? []).map((file) => [file.path, file.digest]));
      const changedUris = [...previousDigests]
        .filter(([path, digest]) => skill.files.find((file) => file.path === path)?.digest !== digest)
        .map(([path]) => skillFileUri(skill.name, path));
      await manager.getRepository(ResourceEntity).delete({ tenant, skill: skill.name });
      await manager.getRepository(ResourceEntity).insert(
        skill.files.map((file) => ({
          id: randomUUID(),
          tenant,
          uri: skillFileUri(skill.name, file.path),
          name: file.path === SKILL_MD ? skill.name : (file.path.split('/').at(-1) ?? file.path),
          title: null,
          description: file.path === SKILL_MD ? skill.description : null,
          mimeType: file.mimeType,
          size: file.size,
          annotations: null,
          icons: null,
          text: file.text ?? null,
          blob: file.text === undefined ? file.data : null,
          servers: effectiveServers,
          skill: skill.name,
        })),
      );
      const files: SkillFileRecord[] = skill.files.map(({ path, digest, size, mimeType }) => ({ path, digest, size, mimeType }));
      if (existing) {
        await manager
          .getRepository(SkillEntity)
          .save({ ...existing, frontmatter: skill.frontmatter as JsonObject, files, size: skill.size, servers: effectiveServers });
      } else {
        await manager.getRepository(SkillEntity).save({
          id: randomUUID(),
          tenant,
          name: skill.name,
          frontmatter: skill.frontmatter as JsonObject,
          files,
          size: skill.size,
          servers: effectiveServers,
        });
      }
      return { kind: 'written', outcome: existing ? 'updated' : 'created', servers: effectiveServers, previousServers: existing?.servers, changedUris };
    });
  }

  /** Serves the skill on `servers` (its files with it); the servers it was on, or `undefined` when there is no such skill. */
  async setServers(tenant: string, name: string, servers: string[]): Promise<string[] | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const existing = await manager
        .getRepository(SkillEntity)
        .createQueryBuilder('s')
        .setLock('pessimistic_write')
        .where('s.tenant = :tenant AND s.name = :name', { tenant, name })
        .getOne();
      if (!existing) return undefined;
      await manager.getRepository(SkillEntity).save({ ...existing, servers });
      await manager.getRepository(ResourceEntity).update({ tenant, skill: name }, { servers });
      return existing.servers;
    });
  }

  /** Deletes the skill and its files; what it was (servers, file URIs), or `undefined` when there was none. */
  async deleteSkill(tenant: string, name: string): Promise<{ servers: string[]; uris: string[] } | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const existing = await manager.getRepository(SkillEntity).findOneBy({ tenant, name });
      if (!existing) return undefined;
      await manager.getRepository(ResourceEntity).delete({ tenant, skill: name });
      await manager.getRepository(SkillEntity).delete({ id: existing.id });
      return { servers: existing.servers, uris: existing.files.map((file) => skillFileUri(name, file.path)) };
    });
  }
}
