import { DirectoryResourceSchema, SkillSchema } from '@modelcontextprotocol/core/ext/skills';
import { z } from 'zod';
import { TENANT_SLUG_PATTERN } from '../common/tenant';
import { defineRpc } from '../define-contract';
import { CachingHintsSchema, VirtualServerAddressSchema } from './resource.contracts';
import { ServerNamesSchema } from './resource-admin.contracts';

/**
 * Agent skills (the skills extension, SEP-2640): a tenant's skills, each a folder with a `SKILL.md`
 * whose files the store serves as resources at `skill://<name>/<path>`. The broker answers
 * `skills/list`, `skills/get` and `resources/directory/read` with these; reads of the files are
 * ordinary `readResource` calls. Administrators upload a skill as an archive through the chunked
 * upload (`beginSkillUpload`, then `appendResourceUpload`, then `commitSkillUpload`), validated and
 * unpacked by the store. Errors: `NOT_FOUND` `{ uri }` or `{ name }` for a skill (or directory) the
 * server does not serve; `INVALID_PARAMS` with `data.code` for a refused archive (`BAD_ARCHIVE`,
 * `BAD_SKILL`, `SKILL_TOO_LARGE`) or `data: { quotaBytes, usedBytes, requestedBytes }` over the quota;
 * `CONFLICT` for URIs a plain resource already holds.
 */

/**
 * The Agent Skills naming rule for a skill's `name` (1–64 characters, lowercase letters, digits and
 * single hyphens, neither first nor last): the final segment of its `skill://` URI.
 */
export const SKILL_NAME_PATTERN = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;
export const SkillNameSchema = z.string().regex(SKILL_NAME_PATTERN, '1-64 lowercase letters, digits and single hyphens, not first or last');

const Tenant = { tenant: z.string().regex(TENANT_SLUG_PATTERN) };

/**
 * A skill entry of `skills/list` and `skills/get` (core's `SkillSchema`): the URI of its `SKILL.md`,
 * that file's frontmatter verbatim as JSON, and every file of the skill (`SKILL.md` included) with its
 * `sha256:` digest and size.
 */
export const SkillEntrySchema = SkillSchema;
export type SkillEntry = z.infer<typeof SkillEntrySchema>;

const Cursor = { cursor: z.string().optional() };

/** One page of the skills the virtual server serves, ordered by name. */
export const listSkills = defineRpc({
  subject: 'resource-store.v1.skill.list',
  request: VirtualServerAddressSchema.extend(Cursor),
  response: CachingHintsSchema.extend({ skills: z.array(SkillEntrySchema), nextCursor: z.string().optional() }),
});

/** The entry of the skill whose `SKILL.md` is `uri`; `NOT_FOUND` `{ uri }` when the server serves none there. */
export const getSkill = defineRpc({
  subject: 'resource-store.v1.skill.get',
  request: VirtualServerAddressSchema.extend({ uri: z.string().min(1).max(2048) }),
  response: CachingHintsSchema.extend({ skill: SkillEntrySchema }),
});

/**
 * The direct children of a directory of a served skill (`skill://<name>` or a folder inside it):
 * files as their resources, folders as `inode/directory` resources. `NOT_FOUND` `{ uri }` for a URI
 * that is not such a directory (a file included).
 */
export const readSkillDirectory = defineRpc({
  subject: 'resource-store.v1.skill.read-directory',
  request: VirtualServerAddressSchema.extend({ uri: z.string().min(1).max(2048), ...Cursor }),
  response: CachingHintsSchema.extend({ resources: z.array(DirectoryResourceSchema), nextCursor: z.string().optional() }),
});

/** A skill as its administrators see it: what clients get, plus where it is served and when it changed. */
export const SkillSummarySchema = z.object({
  name: SkillNameSchema,
  description: z.string(),
  uri: z.string(),
  frontmatter: z.record(z.string(), z.unknown()),
  files: z.array(z.object({ path: z.string(), uri: z.string(), digest: z.string(), size: z.number().int().nonnegative(), mimeType: z.string() })),
  /** Bytes over all files. */
  size: z.number().int().nonnegative(),
  /** Names of the tenant's virtual servers serving it; empty: every server of the tenant. */
  servers: z.array(z.string()),
  version: z.number().int().positive(),
  updatedAt: z.string(),
});
export type SkillSummary = z.infer<typeof SkillSummarySchema>;

/** Starts the upload of a skill's archive (a zip, a tar or a gzipped tar) under `name`; a new skill or a replacement. */
export const beginSkillUpload = defineRpc({
  subject: 'resource-store.v1.skill-upload.begin',
  request: z.object({
    ...Tenant,
    name: SkillNameSchema,
    /** Absent: a new skill is served on every server, a replaced one where it was. */
    servers: ServerNamesSchema.optional(),
    declaredBytes: z.number().int().nonnegative().optional(),
  }),
  response: z.object({ uploadId: z.uuid(), maxArchiveBytes: z.number().int().positive() }),
});

/** Unpacks and validates the archive received, then writes the skill at once; the upload is removed either way. */
export const commitSkillUpload = defineRpc({
  subject: 'resource-store.v1.skill-upload.commit',
  request: z.object({ ...Tenant, uploadId: z.uuid(), totalBytes: z.number().int().nonnegative() }),
  response: z.object({ created: z.boolean(), skill: SkillSummarySchema }),
  timeoutMs: 60_000,
});

export const listTenantSkills = defineRpc({
  subject: 'resource-store.v1.skill-definition.list',
  request: z.object(Tenant),
  response: z.object({ skills: z.array(SkillSummarySchema) }),
});

export const getTenantSkill = defineRpc({
  subject: 'resource-store.v1.skill-definition.get',
  request: z.object({ ...Tenant, name: SkillNameSchema }),
  response: SkillSummarySchema,
});

/** Which virtual servers serve the skill (empty: every server of the tenant). */
export const setSkillServers = defineRpc({
  subject: 'resource-store.v1.skill-definition.set-servers',
  request: z.object({ ...Tenant, name: SkillNameSchema, servers: ServerNamesSchema }),
  response: SkillSummarySchema,
});

export const deleteSkill = defineRpc({
  subject: 'resource-store.v1.skill-definition.delete',
  request: z.object({ ...Tenant, name: SkillNameSchema }),
  response: z.object({ deleted: z.literal(true) }),
});
