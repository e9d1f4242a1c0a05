import { Controller } from '@nestjs/common';
import { resourceStore, type RpcRequestParsed } from '@mcp-platform/protocol-contracts';
import { type CallContext, RpcHandler } from '@mcp-platform/shared-messaging';
import { SkillsService } from './skills.service';

/** skills/list, skills/get and resources/directory/read for a virtual server on the bus: one call into the service each. */
@Controller()
export class SkillsNatsController {
  constructor(private readonly skills: SkillsService) {}

  @RpcHandler(resourceStore.listSkills)
  listSkills(request: RpcRequestParsed<typeof resourceStore.listSkills>, context: CallContext) {
    return this.skills.list(request, request.cursor, context.principal);
  }

  @RpcHandler(resourceStore.getSkill)
  getSkill(request: RpcRequestParsed<typeof resourceStore.getSkill>, context: CallContext) {
    return this.skills.get(request, request.uri, context.principal);
  }

  @RpcHandler(resourceStore.readSkillDirectory)
  readSkillDirectory(request: RpcRequestParsed<typeof resourceStore.readSkillDirectory>, context: CallContext) {
    return this.skills.readDirectory(request, request.uri, request.cursor, context.principal);
  }
}
