import { type Client, ProtocolError } from '@modelcontextprotocol/client';
import { Injectable } from '@nestjs/common';
import { type Principal, type RpcRequestParsed, type RpcResponse, toolExecutor } from '@mcp-platform/protocol-contracts';
import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import { assertTenantAccess } from '../tools/tool-access';
import { UpstreamConnections, UpstreamUnavailable } from './upstream-connections';
import { readUpstreamDirectory } from './upstream-skills';
import { UpstreamSourceCache } from './upstream-source.cache';

/**
 * What the resource store asks of an upstream on behalf of a caller (`upstream-reads.contracts.ts`): a
 * resource read, a skill's directory read, a prompt rendered, a completion. Each goes over the source's connection on this
 * replica. What the upstream answered with a JSON-RPC error becomes `INVALID_PARAMS` with its message;
 * an upstream that cannot be used, `UNAVAILABLE`; a read larger than one bus message, `INVALID_PARAMS`.
 */
@Injectable()
export class UpstreamReadsService {
  constructor(
    private readonly sources: UpstreamSourceCache,
    private readonly connections: UpstreamConnections,
  ) {}

  async readResource(
    request: RpcRequestParsed<typeof toolExecutor.readUpstreamResource>,
    principal: Principal | undefined,
  ): Promise<RpcResponse<typeof toolExecutor.readUpstreamResource>> {
    const result = await this.use(request, principal, (client) => client.readResource({ uri: request.uri }));
    const size = JSON.stringify(result.contents).length;
    if (size > toolExecutor.UPSTREAM_READ_MAX_BYTES) {
      throw new RpcError(
        WireErrorCode.InvalidParams,
        `The upstream's content of ${request.uri.slice(0, 200)} is ${size} bytes, over the ${toolExecutor.UPSTREAM_READ_MAX_BYTES} served`,
      );
    }
    return { contents: result.contents } as RpcResponse<typeof toolExecutor.readUpstreamResource>;
  }

  /** Every page of the upstream's directory (the cursor loop bounded), as one list: past the cap, `INVALID_PARAMS`. */
  async readDirectory(
    request: RpcRequestParsed<typeof toolExecutor.readUpstreamDirectory>,
    principal: Principal | undefined,
  ): Promise<RpcResponse<typeof toolExecutor.readUpstreamDirectory>> {
    const resources = await this.use(request, principal, (client) => readUpstreamDirectory(client, request.uri));
    return { resources } as RpcResponse<typeof toolExecutor.readUpstreamDirectory>;
  }

  async getPrompt(
    request: RpcRequestParsed<typeof toolExecutor.getUpstreamPrompt>,
    principal: Principal | undefined,
  ): Promise<RpcResponse<typeof toolExecutor.getUpstreamPrompt>> {
    const result = await this.use(request, principal, (client) =>
      client.getPrompt({ name: request.name, ...(request.arguments === undefined ? {} : { arguments: request.arguments }) }),
    );
    return result as RpcResponse<typeof toolExecutor.getUpstreamPrompt>;
  }

  async complete(
    request: RpcRequestParsed<typeof toolExecutor.completeUpstream>,
    principal: Principal | undefined,
  ): Promise<RpcResponse<typeof toolExecutor.completeUpstream>> {
    const result = await this.use(request, principal, (client) =>
      client.complete({ ref: request.ref, argument: request.argument, ...(request.context === undefined ? {} : { context: request.context }) }),
    );
    return result as RpcResponse<typeof toolExecutor.completeUpstream>;
  }

  /** Runs `work` on the source's connection, for a caller of the source's tenant; maps what went wrong to the bus's errors. */
  private async use<T>(request: { tenant: string; sourceId: string }, principal: Principal | undefined, work: (client: Client) => Promise<T>): Promise<T> {
    assertTenantAccess(principal, request.tenant);
    const source = await this.sources.get(request.tenant, request.sourceId);
    if (!source?.enabled) throw new RpcError(WireErrorCode.NotFound, `The upstream server is ${source ? 'disabled' : 'gone'}`);
    try {
      return await this.connections.use(source, work);
    } catch (error) {
      if (error instanceof UpstreamUnavailable) throw new RpcError(WireErrorCode.Unavailable, error.message);
      if (error instanceof ProtocolError)
        throw new RpcError(WireErrorCode.InvalidParams, `The upstream server answered error ${error.code}: ${error.message.slice(0, 500)}`);
      throw error;
    }
  }
}
