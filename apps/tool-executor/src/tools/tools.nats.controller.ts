import { Controller } from '@nestjs/common';
import { type EventPayload, type RpcRequestParsed, toolExecutor } from '@mcp-platform/protocol-contracts';
import { type CallContext, EventHandler, RpcHandler } from '@mcp-platform/shared-messaging';
import { CallsService } from './calls.service';
import { ToolsService } from './tools.service';

/** The tool executor's request subjects: one call into a service each. */
@Controller()
export class ToolsNatsController {
  constructor(
    private readonly tools: ToolsService,
    private readonly calls: CallsService,
  ) {}

  @RpcHandler(toolExecutor.listTools)
  listTools(request: RpcRequestParsed<typeof toolExecutor.listTools>, context: CallContext) {
    return this.tools.listTools(request.tenant, request.server, request.cursor, context.principal);
  }

  @RpcHandler(toolExecutor.callTool)
  callTool(request: RpcRequestParsed<typeof toolExecutor.callTool>, context: CallContext) {
    return this.calls.call(request, context.principal, context.deadline);
  }

  @RpcHandler(toolExecutor.describeToolCall)
  describeToolCall(request: RpcRequestParsed<typeof toolExecutor.describeToolCall>, context: CallContext) {
    return this.calls.describe(request, context.principal);
  }

  @EventHandler(toolExecutor.callInputAnswered)
  callInputAnswered(payload: EventPayload<typeof toolExecutor.callInputAnswered>): void {
    this.calls.answerClientRequest(payload);
  }

  @RpcHandler(toolExecutor.getVirtualServer)
  getVirtualServer(request: RpcRequestParsed<typeof toolExecutor.getVirtualServer>) {
    return this.tools.getVirtualServer(request.tenant, request.server);
  }

  @RpcHandler(toolExecutor.listVirtualServers)
  listVirtualServers() {
    return this.tools.listVirtualServers();
  }

  @EventHandler(toolExecutor.sessionRootsChanged)
  sessionRootsChanged(payload: EventPayload<typeof toolExecutor.sessionRootsChanged>): void {
    this.calls.rootsChanged(payload.sessionId);
  }

  @EventHandler(toolExecutor.callCancelled)
  callCancelled(payload: EventPayload<typeof toolExecutor.callCancelled>): void {
    this.calls.cancel(payload.callId, payload.reason);
  }
}
