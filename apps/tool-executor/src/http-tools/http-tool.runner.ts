import { Inject, Injectable, Logger } from '@nestjs/common';
import type { CallToolResult } from '@mcp-platform/protocol-mcp';
import { checkOutboundUrl, findSsrfRefusal, type SsrfRefusedError } from '@mcp-platform/shared-egress';
import type { HttpToolConfig } from '../catalog/catalog.types';
import type { ToolArguments } from '../tools/tool-context';
import { mapHttpAnswer } from './http-answer.mapper';
import { HttpToolTransport } from './http-tool.transport';
import { HTTP_TOOL_OPTIONS, type HttpToolOptions } from './http-tools.constants';

/** Runs tools of kind `http`: POST the arguments as JSON, map the answer to a tool result. */
@Injectable()
export class HttpToolRunner {
  private readonly logger = new Logger(HttpToolRunner.name);

  constructor(
    @Inject(HTTP_TOOL_OPTIONS) private readonly options: HttpToolOptions,
    private readonly transport: HttpToolTransport,
  ) {}

  /**
   * The call's own signal aborts on cancellation and at the tool's timeout; the request is also
   * bounded by the tool's HTTP `timeoutMs` and the executor-wide maximum.
   */
  async run(toolName: string, config: HttpToolConfig, args: ToolArguments, signal: AbortSignal): Promise<CallToolResult> {
    let url: URL;
    try {
      url = checkOutboundUrl(config.url, { allowPrivateNetworks: this.options.allowPrivateNetworks });
    } catch (error) {
      return this.refused(toolName, error as SsrfRefusedError);
    }
    const timeoutMs = Math.min(config.timeoutMs ?? this.options.timeoutMs, this.options.timeoutMs);
    const requestSignal = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
    try {
      const answer = await this.transport.post(url, JSON.stringify(args), config.headers ?? {}, requestSignal, this.options.maxResponseBytes);
      return mapHttpAnswer(answer, this.options.maxResponseBytes);
    } catch (error) {
      if (signal.aborted) throw error;
      const refusal = findSsrfRefusal(error);
      if (refusal) return this.refused(toolName, refusal);
      if (requestSignal.aborted) return { content: [{ type: 'text', text: `The tool endpoint did not answer within ${timeoutMs} ms.` }], isError: true };
      this.logger.warn(`HTTP tool ${toolName} failed: ${(error as Error).message}`);
      return { content: [{ type: 'text', text: `The tool endpoint could not be reached: ${(error as Error).message}` }], isError: true };
    }
  }

  private refused(toolName: string, error: SsrfRefusedError): CallToolResult {
    this.logger.warn(`HTTP tool ${toolName} refused by the SSRF guard: ${error.message}`);
    return { content: [{ type: 'text', text: `Outbound request refused: ${error.message}` }], isError: true };
  }
}
