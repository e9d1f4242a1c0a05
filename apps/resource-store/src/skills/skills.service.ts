import { randomUUID } from 'node:crypto';
import { DIRECTORY_MIME_TYPE } from '@modelcontextprotocol/core/ext/skills';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { type Principal, resourceStore, type RpcRequestParsed, type SkillEntry, type SkillSummary } from '@mcp-platform/protocol-contracts';
import type { Resource } from '@mcp-platform/protocol-mcp';
import { MessageBus, RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import { RESOURCE_LIMITS, type ResourceLimits } from '../resource-store.options';
import { overQuota } from '../resources/content-limits';
import { SKILL_URI_SCHEME } from '../resources/reserved-uris';
import { ResourceReadCache } from '../resources/resource-read.cache';
import type { ServerAddress } from '../resources/resources.service';
import { UploadRepository } from '../resources/upload.repository';
import { incompleteUpload, unknownUpload } from '../resources/upload-refusals';
import { sameJson, touchedServers } from '../store/definition-writes';
import { decodeListCursor, PAGE_SIZE, toPage } from '../store/list-cursor';
import { assertTenantAccess, cacheScopeOf, LIST_TTL_MS, READ_TTL_MS } from '../store/tenant-access';
import { UpstreamCalls } from '../upstream-items/upstream-calls';
import { upstreamItemRefusal } from '../upstream-items/upstream-refusals';
import { upstreamSkillPath } from '../upstream-items/upstream-skills.plan';
import type { SkillEntity } from './skill.entity';
import { type ArchiveFile, readSkillArchive, SKILL_LIMITS, SkillArchiveError } from './skill-archive';
import { InvalidSkillError, SKILL_MD, validateSkill } from './skill-manifest';
import { parseSkillUri, skillFileUri, skillRootUri } from './skill-uris';
import { SkillsRepository } from './skills.repository';

type BeginRequest = RpcRequestParsed<typeof resourceStore.beginSkillUpload>;

/**
 * Agent skills (SEP-2640) per tenant. For virtual servers: `skills/list`, `skills/get` and the
 * directories of `resources/directory/read` (the files themselves are read as resources). For
 * administrators: a skill uploaded as an archive, unpacked and validated here (`skill-archive.ts`,
 * `skill-manifest.ts`), written with its files at once under the tenant quota, served on chosen
 * servers, deleted. Every change drops the tenant's cached reads on this replica and announces
 * `listChanged` (resources: a skill's files are resources) and `resourceUpdated` for changed files.
 */
@Injectable()
export class SkillsService {
  private readonly logger = new Logger(SkillsService.name);

  constructor(
    private readonly skills: SkillsRepository,
    private readonly uploads: UploadRepository,
    private readonly bus: MessageBus,
    @Inject(RESOURCE_LIMITS) private readonly limits: ResourceLimits,
    private readonly readCache: ResourceReadCache,
    private readonly upstreams: UpstreamCalls,
  ) {}

  async list(address: ServerAddress, cursor: string | undefined, principal: Principal | undefined) {
    assertTenantAccess(principal, address.tenant);
    const after = cursor === undefined ? undefined : decodeListCursor(cursor);
    const rows = await this.skills.listServerSkills(address.tenant, address.server, after, PAGE_SIZE + 1);
    const { items, nextCursor } = toPage(rows, (row) => row.name);
    return { skills: items.map(toEntry), ...(nextCursor ? { nextCursor } : {}), ttlMs: LIST_TTL_MS, cacheScope: cacheScopeOf(address.public) };
  }

  /** The entry of the skill whose `SKILL.md` is `uri` (the tenant's own or an upstream's, as pinned); anything else is `NOT_FOUND` `{ uri }`. */
  async get(address: ServerAddress, uri: string, principal: Principal | undefined) {
    assertTenantAccess(principal, address.tenant);
    const path = upstreamSkillPath(uri);
    const skill = path === undefined ? undefined : await this.skills.findServerSkill(address.tenant, address.server, path);
    const entry = skill ? toEntry(skill) : undefined;
    if (!entry || entry.uri !== uri) throw new RpcError(WireErrorCode.NotFound, `No skill at ${uri}`, { uri });
    return { skill: entry, ttlMs: READ_TTL_MS, cacheScope: cacheScopeOf(address.public) };
  }

  /**
   * The direct children of a directory of a served skill: its files, and its folders as directory
   * resources. One page always (a skill has at most `SKILL_LIMITS.maxFiles` files); a cursor is one
   * this store never minted (`INVALID_PARAMS`). Not a directory (a file, another scheme): `NOT_FOUND`.
   * An upstream skill's directory is the upstream's to list (read by the executor, `ttlMs: 0` as any
   * upstream read); one of its files is `NOT_FOUND` without asking.
   */
  async readDirectory(address: ServerAddress, uri: string, cursor: string | undefined, principal: Principal | undefined) {
    const caller = assertTenantAccess(principal, address.tenant);
    if (cursor !== undefined) throw new RpcError(WireErrorCode.InvalidParams, 'Invalid cursor: directory listings have a single page');
    const owner = await this.skills.findServerSkillOwning(address.tenant, address.server, uri);
    if (owner?.upstream) {
      if (owner.files.some((file) => `${SKILL_URI_SCHEME}${owner.name}/${file.path}` === uri)) throw notADirectory(uri);
      const resources = await this.upstreams.readDirectory(address.tenant, owner.upstream, uri, caller);
      return { resources, ttlMs: 0, cacheScope: cacheScopeOf(address.public) };
    }
    const named = parseSkillUri(uri);
    const skill = owner && named?.name === owner.name ? owner : undefined;
    const children = skill && named ? directoryChildren(skill, named.path) : undefined;
    if (!children || (named && uri !== (named.path === '' ? skillRootUri(named.name) : skillFileUri(named.name, named.path)))) {
      throw notADirectory(uri);
    }
    return { resources: children, ttlMs: READ_TTL_MS, cacheScope: cacheScopeOf(address.public) };
  }

  /** Starts the upload of a skill's archive; the archive limit is checked on the announced size and on every append. */
  async beginUpload(request: BeginRequest): Promise<{ uploadId: string; maxArchiveBytes: number }> {
    const maxArchiveBytes = this.limits.maxSkillArchiveBytes;
    if (request.declaredBytes !== undefined && request.declaredBytes > maxArchiveBytes)
      throw tooLarge(`The archive of ${request.declaredBytes} bytes is over the limit of ${maxArchiveBytes}`);
    const uploadId = randomUUID();
    await this.uploads.create({
      id: uploadId,
      tenant: request.tenant,
      kind: 'skill',
      uri: skillRootUri(request.name),
      mimeType: 'application/octet-stream',
      name: request.name,
      servers: request.servers,
    });
    return { uploadId, maxArchiveBytes };
  }

  /** Unpacks, validates and writes the uploaded skill; every refusal says what is wrong, and nothing is stored. */
  async commitUpload(tenant: string, uploadId: string, totalBytes: number): Promise<{ created: boolean; skill: SkillSummary }> {
    const taken = await this.uploads.takeArchive(tenant, uploadId, totalBytes);
    switch (taken.kind) {
      case 'taken': {
        const files = await readArchive(taken.archive);
        const outcome = await this.write(tenant, taken.name, files, taken.servers);
        return { created: outcome === 'created', skill: await this.getDefinition(tenant, taken.name) };
      }
      case 'unknown':
        throw unknownUpload(uploadId);
      case 'incomplete':
        throw incompleteUpload(uploadId, taken.receivedBytes, totalBytes);
      case 'other-kind':
        throw new RpcError(WireErrorCode.InvalidParams, `Upload ${uploadId} stages a ${taken.uploadKind}'s content, not a skill's archive`, { uploadId });
      default:
        return unreachable(taken);
    }
  }

  /**
   * Validates and writes a skill from its files (an upload's, or the seed's); `unchanged` when the
   * stored one has the same frontmatter, files and servers (seeding at every boot announces nothing).
   */
  async write(tenant: string, name: string, files: ArchiveFile[], servers: string[] | undefined): Promise<'created' | 'updated' | 'unchanged'> {
    let skill;
    try {
      skill = validateSkill(name, files);
    } catch (error) {
      if (error instanceof InvalidSkillError) throw new RpcError(WireErrorCode.InvalidParams, error.message, { code: 'BAD_SKILL' });
      throw error;
    }
    if (skill.size > SKILL_LIMITS.maxTotalBytes) throw tooLarge(`The skill's files are ${skill.size} bytes, over ${SKILL_LIMITS.maxTotalBytes}`);
    const existing = await this.skills.findTenantSkill(tenant, name);
    if (existing?.upstream) throw upstreamItemRefusal('skill', name, existing.upstream);
    if (existing && sameSkill(existing, skill.frontmatter, skill.files, servers)) return 'unchanged';
    let write;
    try {
      write = await this.skills.writeSkillWithin(tenant, skill, servers, this.limits.tenantQuotaBytes);
    } finally {
      this.readCache.invalidateTenant(tenant);
    }
    switch (write.kind) {
      case 'written':
        for (const uri of write.changedUris) this.bus.emit(resourceStore.resourceUpdated, { tenant, uri });
        this.bus.emit(resourceStore.listChanged, { tenant, servers: touchedServers(write.previousServers, write.servers), lists: ['resources'] });
        this.logger.debug(`skill ${tenant}/${name} ${write.outcome}: ${skill.files.length} file(s), ${skill.size} bytes`);
        return write.outcome;
      case 'over-quota':
        throw overQuota(tenant, this.limits.tenantQuotaBytes, write.usedBytes, skill.size);
      case 'uri-taken':
        throw new RpcError(WireErrorCode.InvalidParams, `${write.uri} is a resource of the tenant already: delete it before uploading skill ${name}`, {
          code: 'SKILL_URI_TAKEN',
          uri: write.uri,
        });
      default:
        return unreachable(write);
    }
  }

  async listDefinitions(tenant: string): Promise<{ skills: SkillSummary[] }> {
    return { skills: (await this.skills.tenantSkills(tenant)).map(toSummary) };
  }

  async getDefinition(tenant: string, name: string): Promise<SkillSummary> {
    return toSummary(await this.ownSkill(tenant, name));
  }

  /** The tenant's own skill `name`: `NOT_FOUND` when there is none, refused when an upstream source serves it. */
  private async ownSkill(tenant: string, name: string): Promise<SkillEntity> {
    const skill = await this.skills.findTenantSkill(tenant, name);
    if (!skill) throw new RpcError(WireErrorCode.NotFound, `Skill ${name} not found`, { name });
    if (skill.upstream) throw upstreamItemRefusal('skill', name, skill.upstream);
    return skill;
  }

  async setServers(tenant: string, name: string, servers: string[]): Promise<SkillSummary> {
    await this.ownSkill(tenant, name);
    let previous;
    try {
      previous = await this.skills.setServers(tenant, name, servers);
    } finally {
      this.readCache.invalidateTenant(tenant);
    }
    if (previous === undefined) throw new RpcError(WireErrorCode.NotFound, `Skill ${name} not found`, { name });
    this.bus.emit(resourceStore.listChanged, { tenant, servers: touchedServers(previous, servers), lists: ['resources'] });
    return this.getDefinition(tenant, name);
  }

  /** Deletes a skill and its files: their subscribers hear `resourceUpdated` (a read now answers not found). */
  async delete(tenant: string, name: string): Promise<{ deleted: true }> {
    await this.ownSkill(tenant, name);
    let deleted;
    try {
      deleted = await this.skills.deleteSkill(tenant, name);
    } finally {
      this.readCache.invalidateTenant(tenant);
    }
    if (!deleted) throw new RpcError(WireErrorCode.NotFound, `Skill ${name} not found`, { name });
    for (const uri of deleted.uris) this.bus.emit(resourceStore.resourceUpdated, { tenant, uri });
    this.bus.emit(resourceStore.listChanged, { tenant, servers: touchedServers(undefined, deleted.servers), lists: ['resources'] });
    return { deleted: true };
  }
}

/** The archive's files; a refusal of the reader becomes `INVALID_PARAMS` with its code. */
async function readArchive(archive: Buffer): Promise<ArchiveFile[]> {
  try {
    return await readSkillArchive(archive);
  } catch (error) {
    if (error instanceof SkillArchiveError) throw new RpcError(WireErrorCode.InvalidParams, error.message, { code: error.code });
    throw error;
  }
}

/** A skill's entry: an upstream one's with its URIs as the upstream gave them (its row's name is their skill path). */
function toEntry(skill: SkillEntity): SkillEntry {
  if (skill.upstream) {
    const root = `${SKILL_URI_SCHEME}${skill.name}/`;
    return {
      uri: skill.upstream.name,
      frontmatter: skill.frontmatter as SkillEntry['frontmatter'],
      resources: skill.files.map((file) => ({ uri: `${root}${file.path}`, digest: file.digest, size: file.size })),
    };
  }
  return {
    uri: skillFileUri(skill.name, SKILL_MD),
    // Validated at every write: a mapping with a string name and description.
    frontmatter: skill.frontmatter as SkillEntry['frontmatter'],
    resources: skill.files.map((file) => ({ uri: skillFileUri(skill.name, file.path), digest: file.digest, size: file.size })),
  };
}

function toSummary(skill: SkillEntity): SkillSummary {
  return {
    name: skill.name,
    description: String(skill.frontmatter['description'] ?? ''),
    uri: skillFileUri(skill.name, SKILL_MD),
    frontmatter: skill.frontmatter,
    files: skill.files.map((file) => ({ ...file, uri: skillFileUri(skill.name, file.path) })),
    size: skill.size,
    servers: skill.servers,
    version: skill.version,
    updatedAt: skill.updatedAt.toISOString(),
  };
}

/** The children of the folder `path` ('' the root) of a skill, or `undefined` when it is not a folder of it. */
export function directoryChildren(skill: Pick<SkillEntity, 'name' | 'files'>, path: string): Resource[] | undefined {
  const prefix = path === '' ? '' : `${path}/`;
  const inside = skill.files.filter((file) => file.path.startsWith(prefix));
  if (path !== '' && inside.length === 0) return undefined;
  const folders = new Set<string>();
  const children: Resource[] = [];
  for (const file of inside) {
    const [head, ...rest] = file.path.slice(prefix.length).split('/');
    if (head === undefined) continue;
    if (rest.length === 0) {
      children.push({ uri: skillFileUri(skill.name, file.path), name: head, mimeType: file.mimeType, size: file.size });
    } else if (!folders.has(head)) {
      folders.add(head);
      children.push({ uri: skillFileUri(skill.name, `${prefix}${head}`), name: head, mimeType: DIRECTORY_MIME_TYPE });
    }
  }
  return children;
}

function sameSkill(
  existing: SkillEntity,
  frontmatter: Record<string, unknown>,
  files: Array<{ path: string; digest: string }>,
  servers: string[] | undefined,
): boolean {
  const digests = (list: Array<{ path: string; digest: string }>) => JSON.stringify(list.map((file) => [file.path, file.digest]));
  return (
    sameJson(existing.frontmatter, frontmatter) &&
    digests(existing.files) === digests(files) &&
    (servers === undefined || JSON.stringify(existing.servers) === JSON.stringify(servers))
  );
}

function notADirectory(uri: string): RpcError {
  return new RpcError(WireErrorCode.NotFound, `${uri} is not a directory of a skill this server serves`, { uri });
}

function tooLarge(message: string): RpcError {
  return new RpcError(WireErrorCode.InvalidParams, message, { code: 'SKILL_TOO_LARGE' });
}

function unreachable(value: never): never {
  throw new Error(`unhandled outcome: ${JSON.stringify(value)}`);
}
