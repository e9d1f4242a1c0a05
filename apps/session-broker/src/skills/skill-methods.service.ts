import { Injectable, Logger } from '@nestjs/common';
import { resourceStore } from '@mcp-platform/protocol-contracts';
import { type GetSkillParams, invalidParamsError, type ListParams, type ReadDirectoryParams } from '@mcp-platform/protocol-mcp';
import { IdSource } from '@mcp-platform/shared-clock';
import { isRpcError, MessageBus, WireErrorCode } from '@mcp-platform/shared-messaging';
import type { MethodCall } from '../requests/method-call';
import { failure, type MethodOutcome, result } from '../requests/method-outcome';
import { nextCursorOf, platformFailure, principalHeaders, storeAddress } from '../requests/method-support';

/**
 * The skills extension (SEP-2640), the same for both eras: `skills/list`, `skills/get` and
 * `resources/directory/read`, forwarded to the resource store like the resource methods (the virtual
 * server's address, the principal in the headers). A skill or directory the server does not serve is
 * `-32602` with the URI, in either era, as the extension says. The files are read with `resources/read`.
 */
@Injectable()
export class SkillMethods {
  private readonly logger = new Logger(SkillMethods.name);

  constructor(
    private readonly bus: MessageBus,
    private readonly ids: IdSource,
  ) {}

  async listSkills(command: ListParams, call: MethodCall): Promise<MethodOutcome> {
    try {
      const page = await this.bus.request(
        resourceStore.listSkills,
        { ...storeAddress(call), ...(command.cursor === undefined ? {} : { cursor: command.cursor }) },
        principalHeaders(call),
      );
      return result({ skills: page.skills, ...nextCursorOf(page) }, page);
    } catch (error) {
      return platformFailure(this.logger, this.ids, 'skills/list', error);
    }
  }

  async getSkill(command: GetSkillParams, call: MethodCall): Promise<MethodOutcome> {
    try {
      const found = await this.bus.request(resourceStore.getSkill, { ...storeAddress(call), uri: command.uri }, principalHeaders(call));
      return result({ skill: found.skill }, found);
    } catch (error) {
      return this.unknownIsInvalidParams('skills/get', command.uri, error);
    }
  }

  async readDirectory(command: ReadDirectoryParams, call: MethodCall): Promise<MethodOutcome> {
    try {
      const listing = await this.bus.request(
        resourceStore.readSkillDirectory,
        { ...storeAddress(call), uri: command.uri, ...(command.cursor === undefined ? {} : { cursor: command.cursor }) },
        principalHeaders(call),
      );
      return result({ resources: listing.resources, ...nextCursorOf(listing) }, listing);
    } catch (error) {
      return this.unknownIsInvalidParams('resources/directory/read', command.uri, error);
    }
  }

  private unknownIsInvalidParams(method: string, uri: string, error: unknown): MethodOutcome {
    if (isRpcError(error) && error.code === WireErrorCode.NotFound) return failure(invalidParamsError(undefined, error.message, { uri }));
    return platformFailure(this.logger, this.ids, method, error);
  }
}
