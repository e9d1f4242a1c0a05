import { Controller } from '@nestjs/common';
import { resourceStore, type RpcRequestParsed } from '@mcp-platform/protocol-contracts';
import { RpcHandler } from '@mcp-platform/shared-messaging';
import { SkillsService } from './skills.service';

/** The skills of a tenant for the admin API: upload (begin, then the resource upload's appends, then commit), list, get, serve, delete. */
@Controller()
export class SkillAdminNatsController {
  constructor(private readonly skills: SkillsService) {}

  @RpcHandler(resourceStore.beginSkillUpload)
  begin(request: RpcRequestParsed<typeof resourceStore.beginSkillUpload>) {
    return this.skills.beginUpload(request);
  }

  @RpcHandler(resourceStore.commitSkillUpload)
  commit(request: RpcRequestParsed<typeof resourceStore.commitSkillUpload>) {
    return this.skills.commitUpload(request.tenant, request.uploadId, request.totalBytes);
  }

  @RpcHandler(resourceStore.listTenantSkills)
  list(request: RpcRequestParsed<typeof resourceStore.listTenantSkills>) {
    return this.skills.listDefinitions(request.tenant);
  }

  @RpcHandler(resourceStore.getTenantSkill)
  get(request: RpcRequestParsed<typeof resourceStore.getTenantSkill>) {
    return this.skills.getDefinition(request.tenant, request.name);
  }

  @RpcHandler(resourceStore.setSkillServers)
  setServers(request: RpcRequestParsed<typeof resourceStore.setSkillServers>) {
    return this.skills.setServers(request.tenant, request.name, request.servers);
  }

  @RpcHandler(resourceStore.deleteSkill)
  delete(request: RpcRequestParsed<typeof resourceStore.deleteSkill>) {
    return this.skills.delete(request.tenant, request.name);
  }
}
