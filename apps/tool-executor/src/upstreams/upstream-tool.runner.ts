import { ProtocolError, type Tool } from '@modelcontextprotocol/client';
import { Inject, Injectable } from '@nestjs/common';
import type { CallToolResult } from '@mcp-platform/protocol-mcp';
import type { CatalogTool, UpstreamToolConfig } from '../catalog/catalog.types';
import { InputRequired } from '../tools/client-requests';
import type { ToolArguments, ToolContext } from '../tools/tool-context';
import { UpstreamCallRouting } from './upstream-call-routing';
import { UpstreamConnections, UpstreamUnavailable } from './upstream-connections';
import { UpstreamSourceCache } from './upstream-source.cache';
import { UPSTREAM_OPTIONS, type UpstreamOptions } from './upstreams.constants';

const errorResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/** The prefix of `_meta` keys the protocol reserves (the upstream's own `serverInfo`, its protocol version…). */
const RESERVED_META_PREFIX = 'io.modelcontextprotocol/';

/** An upstream's result without the reserved `_meta` keys it set for itself: they speak of the upstream, not of this platform. */
function withoutReservedMeta(result: CallToolResult): CallToolResult {
  const meta = result._meta;
  if (meta === undefined) return result;
  const kept = Object.fromEntries(Object.entries(meta).filter(([key]) => !key.startsWith(RESERVED_META_PREFIX)));
  const { _meta: _dropped, ...rest } = result;
  return Object.keys(kept).length ? { ...rest, _meta: kept } : rest;
}

/**
 * Runs tools of kind `upstream`: the call goes to the source's upstream under the upstream's own name,
 * with the approved definition (the SDK validates the answer against its output schema), the call's
 * signal (cancellation reaches the upstream as `notifications/cancelled`) and its progress relayed to
 * the caller; what the upstream asks or logs meanwhile reaches the caller in its own era
 * ({@link UpstreamCallRouting}). An upstream that cannot be used answers an error result with an error id (the details
 * are in the source's health and the log); a JSON-RPC error the upstream answered becomes an error
 * result naming it.
 */
@Injectable()
export class UpstreamToolRunner {
  constructor(
    @Inject(UPSTREAM_OPTIONS) private readonly options: UpstreamOptions,
    private readonly sources: UpstreamSourceCache,
    private readonly connections: UpstreamConnections,
    private readonly routing: UpstreamCallRouting,
  ) {}

  async run(tool: CatalogTool, config: UpstreamToolConfig, args: ToolArguments, context: ToolContext): Promise<CallToolResult> {
    const source = await this.sources.get(tool.tenant, config.source);
    if (!source?.enabled) return errorResult(`Tool ${tool.name} is unavailable: its upstream server is ${source ? 'disabled' : 'gone'}.`);
    const definition = {
      name: config.tool,
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
    } as Tool;
    const route = this.routing.open(context);
    try {
      const calling = this.connections.use(
        source,
        (client) =>
          route.within(client, () => {
            const meta = route.meta(client);
            return client.callTool(
              { name: config.tool, arguments: args, ...(meta ? { _meta: meta } : {}) },
              {
                signal: route.signal,
                timeout: source.timeoutMs ?? this.options.callTimeoutMs,
                resetTimeoutOnProgress: true,
                maxTotalTimeout: tool.timeoutMs,
                toolDefinition: definition,
                onprogress: (progress) => context.progress(progress.progress, progress.total, progress.message),
              },
            );
          }),
        route.signal,
      );
      const result = await Promise.race([calling, route.stopped]);
      return withoutReservedMeta(result as CallToolResult);
    } catch (error) {
      // The caller stopped the call, or must answer what the upstream asked before it is made again.
      if (context.signal.aborted) throw error;
      if (route.signal.reason instanceof InputRequired) throw route.signal.reason;
      if (error instanceof UpstreamUnavailable) return errorResult(error.message);
      if (error instanceof ProtocolError) return errorResult(`The upstream server answered error ${error.code}: ${error.message.slice(0, 500)}`);
      throw error;
    } finally {
      route.close();
    }
  }
}
