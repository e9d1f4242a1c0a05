import { Controller } from '@nestjs/common';
import { authorizationServer } from '@mcp-platform/protocol-contracts';
import { EventHandler, RpcHandler } from '@mcp-platform/shared-messaging';
import { SigningKeysService } from './signing-keys.service';

/** The key set for resource servers, and every replica's refresh when another one rotated. */
@Controller()
export class SigningKeysNatsController {
  constructor(private readonly keys: SigningKeysService) {}

  @RpcHandler(authorizationServer.listSigningKeys)
  listSigningKeys() {
    return this.keys.signingKeySet();
  }

  @EventHandler(authorizationServer.signingKeysRotated)
  async signingKeysRotated(): Promise<void> {
    await this.keys.reload();
  }
}
