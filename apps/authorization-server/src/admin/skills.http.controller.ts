import { Delete, Get, Put } from '@nestjs/common';
import { AdminController, AdminRoute, RawUploadBody, ZodBody, ZodParam, ZodQueryObject } from './admin-openapi.decorators';
import { RawUpload, RawUploadRoute } from './admin-raw-upload';
import { TenantSlugSchema } from './identity-admin.schemas';
import {
  SkillListSchema,
  SkillNameSchema,
  type SkillServersBody,
  SkillServersBodySchema,
  type SkillUploadQuery,
  SkillUploadQuerySchema,
  SkillUploadResultSchema,
  SkillViewSchema,
} from './skill-admin.schemas';
import { SkillAdminService } from './skill-admin.service';

/**
 * A tenant's agent skills (the skills extension, SEP-2640): a folder with a `SKILL.md`, uploaded as
 * one archive, served to clients of both eras by `skills/list`, `skills/get`, `resources/read` of
 * `skill://<name>/<path>` and `resources/directory/read`.
 */
@AdminController({ path: 'tenants/:tenant/skills', tag: 'skills', access: 'tenant' })
export class SkillsHttpController {
  constructor(private readonly skills: SkillAdminService) {}

  @Get()
  @AdminRoute({ operationId: 'listSkills', summary: "List the tenant's skills with their files' digests", response: SkillListSchema, errors: [503] })
  list(@ZodParam('tenant', TenantSlugSchema) tenant: string) {
    return this.skills.list(tenant);
  }

  @Get(':name')
  @AdminRoute({ operationId: 'getSkill', summary: 'Get a skill: its frontmatter, files, digests and servers', response: SkillViewSchema, errors: [404, 503] })
  get(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('name', SkillNameSchema) name: string) {
    return this.skills.get(tenant, name);
  }

  @Put(':name')
  @RawUploadRoute()
  @AdminRoute({
    operationId: 'uploadSkill',
    summary: 'Create or replace a skill from an archive of its folder (zip, tar or tar.gz)',
    description:
      "The body is the archive (`curl --data-binary @skill.zip`), told apart by its first bytes whatever its `Content-Type`. It holds the skill folder's files, at its root or inside one folder: a `SKILL.md` beginning with YAML frontmatter whose `name` equals the path's name and whose `description` is not empty, and any other files. " +
      'Refused with 400 and nothing stored: a missing or malformed `SKILL.md`, entries leaving the folder (`..`, absolute paths), links or devices, duplicate paths, metadata keys under `io.modelcontextprotocol/`, a file that is not a zip or tar. ' +
      'Refused with 413: an archive over 17 MiB, more than 512 files, more than 16 MiB unpacked, or an archive unpacking to over 100 times its size (a compression bomb); the tenant quota counts the files. ' +
      "Refused with 409: a file URI `skill://<name>/…` a plain resource already holds. The platform computes each file's SHA-256 digest and size; clients hear `resources/list_changed`, and subscribers of a changed file `resources/updated`.",
    response: SkillUploadResultSchema,
    errors: [409, 413, 503],
  })
  upload(
    @ZodParam('tenant', TenantSlugSchema) tenant: string,
    @ZodParam('name', SkillNameSchema) name: string,
    @ZodQueryObject(SkillUploadQuerySchema) query: SkillUploadQuery,
    @RawUploadBody('The skill folder as a zip, tar or gzipped tar archive') body: RawUpload,
  ) {
    return this.skills.upload(tenant, name, query, body);
  }

  @Put(':name/servers')
  @AdminRoute({ operationId: 'setSkillServers', summary: 'Choose the virtual servers serving a skill', response: SkillViewSchema, errors: [404, 503] })
  setServers(
    @ZodParam('tenant', TenantSlugSchema) tenant: string,
    @ZodParam('name', SkillNameSchema) name: string,
    @ZodBody(SkillServersBodySchema) body: SkillServersBody,
  ) {
    return this.skills.setServers(tenant, name, body.servers);
  }

  @Delete(':name')
  @AdminRoute({ operationId: 'deleteSkill', summary: 'Delete a skill and its files', status: 204, errors: [404, 503] })
  delete(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('name', SkillNameSchema) name: string) {
    return this.skills.delete(tenant, name);
  }
}
