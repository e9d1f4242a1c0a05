import type { Principal } from '@mcp-platform/protocol-contracts';
import type { LoggingLevel, RequestId } from '@mcp-platform/protocol-mcp';
import type { LazyResponse } from '../streams/lazy-response';
import type { VirtualServer } from '../virtual-servers/virtual-server.cache';

/**
 * One MCP request as every method handler gets it, whichever era it came in: who asks, where, what the
 * client declared and the response to answer on. The era front ends fill it in; the handlers never
 * learn the era, only what the request's wire lets them do (a session to talk back on, or answers
 * carried by the request itself).
 */
export interface MethodCall {
  requestId: RequestId;
  virtualServer: VirtualServer;
  /** The caller as the edge authenticated it; travels in the bus headers (never the token, S-146). */
  principal: Principal;
  protocolVersion: string;
  /** What the client declared (at `initialize` in a session; on the request otherwise); tools ask only for that. */
  clientCapabilities: Record<string, unknown>;
  /** Minimum level of log notifications for this request; absent: none. */
  logLevel?: LoggingLevel;
  response: LazyResponse;
  /** The session the request came in; absent on the stateless wire (S-23). */
  session?: SessionOfCall;
  /**
   * How a `tools/call` may become a task: `by-request` when the request asks for one (`params.task`,
   * S-275), `by-server` when the client declared the tasks extension and the server decides (S-296),
   * `never` otherwise (S-273: an older session's `task` is ignored).
   */
  tasks: 'by-request' | 'by-server' | 'never';
  /** Stateless wire, multi round-trip requests: every answer to this request's input requests so far (S-62). */
  inputResponses?: Record<string, unknown>;
  /** Stateless wire, multi round-trip requests: what the handler's last round asked to get back (`InputRequiredOutcome.continuation`). */
  continuation?: Record<string, unknown>;
  /** Stateless wire: the `Mcp-Param-*` headers (SEP-2243), by lower-case name after the prefix. */
  paramHeaders?: Record<string, string>;
}

/** The legacy session a request came in, and how a call of it gets its resumable stream. */
export interface SessionOfCall {
  id: string;
  /**
   * Makes the response a call's resumable stream (S-89, S-90) and names it: a fresh log key the executor
   * writes, and, for sessions that prime (2025-11-25 and later, S-80), how long a call may answer in
   * plain JSON before its stream opens with a priming event.
   */
  openCallStream(): { key: string; primeAfterMs?: number };
}
