import type { DirectoryResource } from '@modelcontextprotocol/core/ext/skills';
import { Injectable, Logger } from '@nestjs/common';
import { type Principal, type RpcContract, type RpcRequest, type RpcResponse, toolExecutor } from '@mcp-platform/protocol-contracts';
import type { CompleteResult, GetPromptResult, ReadResourceResult } from '@mcp-platform/protocol-mcp';
import { isRpcError, MessageBus, RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import type { UpstreamOrigin } from '../store/store.types';

/** A completion's reference as the upstream knows it: its prompt by its own name, its template by the URI template. */
export type UpstreamCompletionReference = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

/**
 * What the store asks the tool executor about an upstream item it serves (`upstream-reads.contracts.ts`):
 * the executor holds the upstream connections. The caller's principal travels in the call context, as it
 * came from the broker, so the executor checks the tenant again. An `RpcError` the executor answered
 * passes through as it is (its code: `INVALID_PARAMS` for what the upstream refused, `UNAVAILABLE` for an
 * upstream it cannot use); no answer in time, or no executor at all, is `UNAVAILABLE`. Each failure is
 * logged with the source's name.
 */
@Injectable()
export class UpstreamCalls {
  private readonly logger = new Logger(UpstreamCalls.name);

  constructor(private readonly bus: MessageBus) {}

  /** `resources/read` of `uri` (an upstream resource's, or one the source's template matches). */
  async readResource(tenant: string, origin: UpstreamOrigin, uri: string, principal: Principal): Promise<ReadResourceResult['contents']> {
    const answer = await this.call(toolExecutor.readUpstreamResource, { tenant, sourceId: origin.sourceId, uri }, origin, principal, `read ${uri}`);
    return answer.contents;
  }

  /** `resources/directory/read` of `uri`, a directory of the source's skill: every child, one page. */
  async readDirectory(tenant: string, origin: UpstreamOrigin, uri: string, principal: Principal): Promise<DirectoryResource[]> {
    const answer = await this.call(toolExecutor.readUpstreamDirectory, { tenant, sourceId: origin.sourceId, uri }, origin, principal, `read directory ${uri}`);
    return answer.resources;
  }

  /** `prompts/get` of the upstream's prompt (its own name) with the caller's arguments. */
  async getPrompt(tenant: string, origin: UpstreamOrigin, args: Record<string, string> | undefined, principal: Principal): Promise<GetPromptResult> {
    const request = { tenant, sourceId: origin.sourceId, name: origin.name, ...(args === undefined ? {} : { arguments: args }) };
    return this.call(toolExecutor.getUpstreamPrompt, request, origin, principal, `get prompt ${origin.name}`);
  }

  /** `completion/complete` on the source for its prompt or template. */
  async complete(
    tenant: string,
    origin: UpstreamOrigin,
    ref: UpstreamCompletionReference,
    argument: { name: string; value: string },
    context: Record<string, string> | undefined,
    principal: Principal,
  ): Promise<CompleteResult> {
    const request = { tenant, sourceId: origin.sourceId, ref, argument, ...(context === undefined ? {} : { context: { arguments: context } }) };
    return this.call(toolExecutor.completeUpstream, request, origin, principal, `complete ${ref.type === 'ref/prompt' ? ref.name : ref.uri}`);
  }

  private async call<C extends RpcContract>(
    contract: C,
    request: RpcRequest<C>,
    origin: UpstreamOrigin,
    principal: Principal,
    what: string,
  ): Promise<RpcResponse<C>> {
    try {
      return await this.bus.request(contract, request, { context: { principal } });
    } catch (error) {
      throw this.failure(error, origin, what);
    }
  }

  /** What the caller sees of a failed executor call (see the class). */
  private failure(error: unknown, origin: UpstreamOrigin, what: string): RpcError {
    const named = `upstream source ${origin.source} (id ${origin.sourceId}): ${what}`;
    if (isRpcError(error) && error.code !== WireErrorCode.Timeout) {
      // The executor's own answer (an UNAVAILABLE included: it says which upstream failed and why).
      if (error.code === WireErrorCode.Unavailable) this.logger.warn(`${named}: ${error.code}: ${error.message}`);
      else this.logger.debug(`${named}: ${error.code}: ${error.message}`);
      return error;
    }
    const reason = error instanceof Error ? error.message : String(error);
    this.logger.warn(`${named}: no answer from the tool executor: ${reason}`);
    return new RpcError(WireErrorCode.Unavailable, `Upstream source ${origin.source} did not answer in time`);
  }
}
