import { Inject, Injectable, Logger } from '@nestjs/common';
import type { toolExecutor } from '@mcp-platform/protocol-contracts';
import type { CallToolResult } from '@mcp-platform/protocol-mcp';
import { IdSource } from '@mcp-platform/shared-clock';
import { checkOutboundUrl, describeOutboundFailure, findSsrfRefusal, SsrfRefusedError } from '@mcp-platform/shared-egress';
import type { HttpToolConfig } from '../catalog/catalog.types';
import type { ToolArguments } from '../tools/tool-context';
import { mapHttpAnswer } from './http-answer.mapper';
import { HttpToolTransport } from './http-tool.transport';
import { type FailedTool, HttpToolFailures } from './http-tool-failures';
import { HTTP_TOOL_OPTIONS, type HttpToolOptions } from './http-tools.constants';

/** The setting that lets HTTP tools reach non-public addresses, named to administrators when the guard refuses one. */
export const ALLOW_PRIVATE_NETWORKS_SETTING = 'TOOL_HTTP_ALLOW_PRIVATE_NETWORKS';

/**
 * Runs tools of kind `http`: POST the arguments as JSON, map the answer to a tool result. A call that
 * fails records the failure as the tool's last one (the admin API shows it) and logs it under an error
 * id. What the caller reads never names the executor's network (issue 13 item 5): a refusal of the
 * SSRF guard and a DNS, connection or TLS failure all read "could not be reached" with the error id;
 * timeouts and the endpoint's own answers (a status, a body over the cap, a malformed result) are told
 * as they are, since they say nothing about where the endpoint is.
 */
@Injectable()
export class HttpToolRunner {
  private readonly logger = new Logger(HttpToolRunner.name);

  constructor(
    @Inject(HTTP_TOOL_OPTIONS) private readonly options: HttpToolOptions,
    private readonly transport: HttpToolTransport,
    private readonly failures: HttpToolFailures,
    private readonly ids: IdSource,
  ) {}

  /**
   * The call's own signal aborts on cancellation and at the tool's timeout; the request is also
   * bounded by the tool's HTTP `timeoutMs` and the executor-wide maximum.
   */
  async run(tool: FailedTool, config: HttpToolConfig, args: ToolArguments, signal: AbortSignal): Promise<CallToolResult> {
    let url: URL;
    try {
      url = checkOutboundUrl(config.url, { allowPrivateNetworks: this.options.allowPrivateNetworks });
    } catch (error) {
      return this.unreachable(tool, 'refused', this.refusalDetail(error as SsrfRefusedError));
    }
    const timeoutMs = Math.min(config.timeoutMs ?? this.options.timeoutMs, this.options.timeoutMs);
    const requestSignal = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
    try {
      const answer = await this.transport.post(url, JSON.stringify(args), config.headers ?? {}, requestSignal, this.options.maxResponseBytes);
      const mapped = mapHttpAnswer(answer, this.options.maxResponseBytes);
      if (mapped.failure) this.failed(tool, mapped.failure.kind, mapped.failure.detail);
      return mapped.result;
    } catch (error) {
      if (signal.aborted) throw error;
      const refusal = findSsrfRefusal(error);
      if (refusal) return this.unreachable(tool, 'refused', this.refusalDetail(refusal));
      if (requestSignal.aborted) {
        const text = `The tool endpoint did not answer within ${timeoutMs} ms.`;
        this.failed(tool, 'timeout', text);
        return errorResult(text);
      }
      return this.unreachable(tool, 'unreachable', describeOutboundFailure(error));
    }
  }

  /** A failure whose details stay with the administrators: the caller gets the error id only. */
  private unreachable(tool: FailedTool, kind: 'refused' | 'unreachable', detail: string): CallToolResult {
    const errorId = this.failed(tool, kind, detail);
    return errorResult(`The tool's endpoint could not be reached (error id ${errorId}).`);
  }

  /** Logs the failure and keeps it as the tool's last one; answers its error id. */
  private failed(tool: FailedTool, kind: toolExecutor.ToolFailureKind, detail: string): string {
    const errorId = this.ids.newId();
    this.logger.warn(`HTTP tool ${tool.tenant}/${tool.name} failed (${kind}, error id ${errorId}): ${detail}`);
    this.failures.record(tool, { at: new Date(), errorId, kind, detail });
    return errorId;
  }

  /**
   * The guard's reason; for a non-public address also the way out, which is the operator's and not the
   * tenant admin's (issue 13 item 16): the setting that lets every HTTP tool reach private networks.
   */
  private refusalDetail(refusal: SsrfRefusedError): string {
    if (refusal.reason !== 'non_public_address') return `refused by the SSRF guard: ${refusal.message}`;
    return (
      `refused by the SSRF guard: ${refusal.message}. HTTP tools reach only public addresses unless the platform's operator sets ` +
      `${ALLOW_PRIVATE_NETWORKS_SETTING}=true on the tool executor (an operator setting for every tenant's HTTP tools, not a tool setting)`
    );
  }
}

const errorResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });
