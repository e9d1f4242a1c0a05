import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { RESOURCE_STORE_CONNECTION, RESOURCE_STORE_SCHEMA } from '../resource-store.constants';
import type { WriteOutcome } from '../store/rows';
import type { UpstreamOrigin } from '../store/store.types';
import { lockTenantQuota, tenantBytesExcept } from '../store/tenant-quota';
import { ResourceUploadEntity } from './resource-upload.entity';
import { ResourceUploadChunkEntity } from './resource-upload-chunk.entity';

/** What an upload stages: a resource's content, or a skill's archive (`uri` is then the skill's root). */
export type UploadKind = 'resource' | 'skill';

/** An upload as begun: the resource it writes, and the metadata it was given (absent: keep the resource's). */
export interface NewUpload {
  id: string;
  tenant: string;
  kind?: UploadKind;
  uri: string;
  mimeType: string;
  name?: string | undefined;
  title?: string | undefined;
  description?: string | undefined;
  servers?: string[] | undefined;
}

/** What an append did; `too-large` dropped the upload. */
export type AppendOutcome =
  | { kind: 'appended'; receivedBytes: number }
  | { kind: 'unknown' }
  | { kind: 'out-of-order'; receivedBytes: number }
  | { kind: 'too-large'; requestedBytes: number; maxBytes: number };

/** What a commit did. Every outcome but `unknown` removed the upload. */
export type CommitOutcome =
  | { kind: 'committed'; outcome: WriteOutcome; uri: string; servers: string[]; previousServers: string[] | undefined }
  | { kind: 'unknown' }
  | { kind: 'incomplete'; receivedBytes: number }
  | { kind: 'other-kind'; uploadKind: UploadKind }
  | { kind: 'unnamed'; uri: string }
  | { kind: 'upstream'; uri: string; upstream: UpstreamOrigin }
  | { kind: 'over-quota'; usedBytes: number; requestedBytes: number };

/** The archive a skill upload staged, taken out of the store (the upload is gone); or why there is none. */
export type TakenArchive =
  | { kind: 'taken'; name: string; servers: string[] | undefined; archive: Buffer }
  | { kind: 'unknown' }
  | { kind: 'incomplete'; receivedBytes: number }
  | { kind: 'other-kind'; uploadKind: UploadKind };

interface UploadRow {
  kind: UploadKind;
  uri: string;
  mime_type: string;
  name: string | null;
  title: string | null;
  description: string | null;
  servers: string[] | null;
  received_bytes: number;
}

const UPLOADS = `"${RESOURCE_STORE_SCHEMA}"."resource_uploads"`;
const CHUNKS = `"${RESOURCE_STORE_SCHEMA}"."resource_upload_chunks"`;
const RESOURCES = `"${RESOURCE_STORE_SCHEMA}"."resources"`;

/**
 * Uploads in progress: a row per upload and a row per chunk, keyed by its byte offset. The commit
 * joins the chunks into the resource's `bytea` inside the database (`string_agg`), so the store
 * process never holds a whole content either.
 */
@Injectable()
export class UploadRepository {
  constructor(@InjectDataSource(RESOURCE_STORE_CONNECTION) private readonly dataSource: DataSource) {}

  async create(upload: NewUpload): Promise<void> {
    await this.dataSource.getRepository(ResourceUploadEntity).insert({
      id: upload.id,
      tenant: upload.tenant,
      kind: upload.kind ?? 'resource',
      uri: upload.uri,
      mimeType: upload.mimeType,
      name: upload.name ?? null,
      title: upload.title ?? null,
      description: upload.description ?? null,
      servers: upload.servers ?? null,
      receivedBytes: 0,
    });
  }

  /**
   * Stages `data` at `offset`, which must be the bytes received so far (a retried or reordered chunk
   * is refused rather than joined twice). Past `maxBytes` of its kind, the upload is dropped.
   */
  async append(tenant: string, uploadId: string, offset: number, data: Buffer, maxBytes: Record<UploadKind, number>): Promise<AppendOutcome> {
    return this.dataSource.transaction(async (manager) => {
      const upload = await lockUpload(manager, tenant, uploadId);
      if (!upload) return { kind: 'unknown' };
      if (offset !== upload.received_bytes) return { kind: 'out-of-order', receivedBytes: upload.received_bytes };
      const receivedBytes = upload.received_bytes + data.length;
      if (receivedBytes > maxBytes[upload.kind]) {
        await dropUpload(manager, uploadId);
        return { kind: 'too-large', requestedBytes: receivedBytes, maxBytes: maxBytes[upload.kind] };
      }
      if (data.length > 0) await manager.getRepository(ResourceUploadChunkEntity).insert({ uploadId, byteOffset: offset, data });
      await manager
        .getRepository(ResourceUploadEntity)
        .createQueryBuilder()
        .update()
        .set({ receivedBytes, updatedAt: () => 'now()' })
        .where('id = :uploadId', { uploadId })
        .execute();
      return { kind: 'appended', receivedBytes };
    });
  }

  /**
   * Writes the resource from the upload's chunks, if `totalBytes` arrived, a name is known (given, or
   * the replaced resource's) and the tenant stays within `quotaBytes`: under the tenant's quota lock,
   * in one transaction with the upload's removal. Metadata given with the upload replaces the
   * resource's; what was not given is kept (a new resource has none of it, and every server).
   */
  async commitWithin(tenant: string, uploadId: string, totalBytes: number, quotaBytes: number): Promise<CommitOutcome> {
    return this.dataSource.transaction(async (manager) => {
      await lockTenantQuota(manager, tenant);
      const upload = await lockUpload(manager, tenant, uploadId);
      if (!upload) return { kind: 'unknown' };
      const refuse = async (outcome: CommitOutcome): Promise<CommitOutcome> => {
        await dropUpload(manager, uploadId);
        return outcome;
      };
      if (upload.kind !== 'resource') return refuse({ kind: 'other-kind', uploadKind: upload.kind });
      if (upload.received_bytes !== totalBytes) return refuse({ kind: 'incomplete', receivedBytes: upload.received_bytes });
      const existing = await lockResourceRow(manager, tenant, upload.uri);
      // An upstream source took the URI since the upload began (the upstream put holds the same lock).
      const taken = upstreamTaken(existing, upload.uri);
      if (taken) return refuse(taken);
      const name = upload.name ?? existing?.name;
      if (name === undefined) return refuse({ kind: 'unnamed', uri: upload.uri });
      const size = upload.received_bytes;
      const usedBytes = await tenantBytesExcept(manager, tenant, { uri: upload.uri });
      if (usedBytes + size > quotaBytes) return refuse({ kind: 'over-quota', usedBytes, requestedBytes: size });

      await writeJoinedContent(manager, { tenant, uploadId, upload, name, size, existingId: existing?.id });
      await dropUpload(manager, uploadId);
      return {
        kind: 'committed',
        outcome: existing ? 'updated' : 'created',
        uri: upload.uri,
        servers: upload.servers ?? existing?.servers ?? [],
        previousServers: existing?.servers,
      };
    });
  }

  /**
   * The archive of a skill upload, joined from its chunks if `totalBytes` arrived, and the upload
   * removed with it (whatever the outcome but `unknown`): the caller unpacks and validates it.
   */
  async takeArchive(tenant: string, uploadId: string, totalBytes: number): Promise<TakenArchive> {
    return this.dataSource.transaction(async (manager) => {
      const upload = await lockUpload(manager, tenant, uploadId);
      if (!upload) return { kind: 'unknown' };
      if (upload.kind !== 'skill') return { kind: 'other-kind', uploadKind: upload.kind };
      if (upload.received_bytes !== totalBytes) {
        await dropUpload(manager, uploadId);
        return { kind: 'incomplete', receivedBytes: upload.received_bytes };
      }
      const [row] = (await manager.query(
        `SELECT COALESCE(string_agg("data", ''::bytea ORDER BY "byte_offset"), ''::bytea) AS "archive" FROM ${CHUNKS} WHERE "upload_id" = $1`,
        [uploadId],
      )) as Array<{ archive: Buffer }>;
      await dropUpload(manager, uploadId);
      return { kind: 'taken', name: upload.name ?? '', servers: upload.servers ?? undefined, archive: Buffer.from(row?.archive ?? Buffer.alloc(0)) };
    });
  }

  /** Drops the tenant's upload and its chunks; whether there was one. */
  async abort(tenant: string, uploadId: string): Promise<boolean> {
    const result = await this.dataSource
      .getRepository(ResourceUploadEntity)
      .createQueryBuilder()
      .delete()
      .where('id = :uploadId', { uploadId })
      .andWhere('tenant = :tenant', { tenant })
      .returning('id')
      .execute();
    return ((result.raw ?? []) as unknown[]).length > 0;
  }

  /** Drops every upload of the tenant and their chunks (the tenant was deleted); how many. */
  async deleteTenant(tenant: string): Promise<number> {
    const result = await this.dataSource
      .getRepository(ResourceUploadEntity)
      .createQueryBuilder()
      .delete()
      .where('tenant = :tenant', { tenant })
      .returning('id')
      .execute();
    return ((result.raw ?? []) as unknown[]).length;
  }

  /** Drops every upload (of any tenant) without an append for `idleMs`, by the database's clock; how many. */
  async sweepIdle(idleMs: number): Promise<number> {
    const result = await this.dataSource
      .getRepository(ResourceUploadEntity)
      .createQueryBuilder()
      .delete()
      .where(`updated_at < now() - (CAST(:idleMs AS double precision) * interval '1 millisecond')`, { idleMs })
      .returning('id')
      .execute();
    return ((result.raw ?? []) as unknown[]).length;
  }
}

/** The tenant's upload, locked for the rest of the transaction (appends and the commit of one upload queue up). */
async function lockUpload(manager: EntityManager, tenant: string, uploadId: string): Promise<UploadRow | undefined> {
  const rows = (await manager.query(
    `SELECT "kind", "uri", "mime_type", "name", "title", "description", "servers", "received_bytes" FROM ${UPLOADS} WHERE "id" = $1 AND "tenant" = $2 FOR UPDATE`,
    [uploadId, tenant],
  )) as UploadRow[];
  const row = rows[0];
  return row ? { ...row, received_bytes: Number(row.received_bytes) } : undefined;
}

/** Deletes an upload; its chunks go with it (`ON DELETE CASCADE`). */
async function dropUpload(manager: EntityManager, uploadId: string): Promise<void> {
  await manager.getRepository(ResourceUploadEntity).delete({ id: uploadId });
}

/** The row at the tenant's `uri`, locked until the transaction ends; `undefined` when there is none. */
async function lockResourceRow(
  manager: EntityManager,
  tenant: string,
  uri: string,
): Promise<{ id: string; name: string; servers: string[]; upstream: UpstreamOrigin | null } | undefined> {
  const rows = (await manager.query(`SELECT "id", "name", "servers", "upstream" FROM ${RESOURCES} WHERE "tenant" = $1 AND "uri" = $2 FOR UPDATE`, [
    tenant,
    uri,
  ])) as Array<{
    id: string;
    name: string;
    servers: string[];
    upstream: UpstreamOrigin | null;
  }>;
  return rows[0];
}

/** Writes the upload's joined chunks as the resource's bytes (inside the database): replaces the row `existingId`, or inserts one. */
async function writeJoinedContent(
  manager: EntityManager,
  write: { tenant: string; uploadId: string; upload: UploadRow; name: string; size: number; existingId: string | undefined },
): Promise<void> {
  const { tenant, uploadId, upload, name, size } = write;
  const joined = `(SELECT COALESCE(string_agg(c."data", ''::bytea ORDER BY c."byte_offset"), ''::bytea) FROM ${CHUNKS} c WHERE c."upload_id" = $1)`;
  const servers = upload.servers === null ? null : JSON.stringify(upload.servers);
  if (write.existingId !== undefined) {
    await manager.query(
      `UPDATE ${RESOURCES} SET "name" = $2, "title" = COALESCE($3, "title"), "description" = COALESCE($4, "description"), "mime_type" = $5,
         "servers" = COALESCE($6::jsonb, "servers"), "size" = $7, "text" = NULL, "blob" = ${joined}, "version" = "version" + 1, "updated_at" = now()
       WHERE "id" = $8`,
      [uploadId, name, upload.title, upload.description, upload.mime_type, servers, size, write.existingId],
    );
  } else {
    await manager.query(
      `INSERT INTO ${RESOURCES} ("id", "tenant", "uri", "name", "title", "description", "mime_type", "size", "blob", "servers")
       VALUES (gen_random_uuid(), $2, $3, $4, $5, $6, $7, $8, ${joined}, COALESCE($9::jsonb, '[]'::jsonb))`,
      [uploadId, tenant, upload.uri, name, upload.title, upload.description, upload.mime_type, size, servers],
    );
  }
}

/** The refusal of a commit onto an upstream item's row, or `undefined` for the tenant's own row (or none). */
function upstreamTaken(row: { upstream: UpstreamOrigin | null } | undefined, uri: string): CommitOutcome | undefined {
  return row?.upstream ? { kind: 'upstream', uri, upstream: row.upstream } : undefined;
}
