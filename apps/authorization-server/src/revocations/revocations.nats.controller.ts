import { Controller } from '@nestjs/common';
import { authorizationServer } from '@mcp-platform/protocol-contracts';
import { RpcHandler } from '@mcp-platform/shared-messaging';
import { AccessRevocations } from './access-revocations.service';

/** The revocations resource servers load before they verify tokens. */
@Controller()
export class RevocationsNatsController {
  constructor(private readonly revocations: AccessRevocations) {}

  @RpcHandler(authorizationServer.listRevocations)
  async listRevocations() {
    return { revocations: await this.revocations.list() };
  }
}
