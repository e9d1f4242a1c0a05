import { MessageHeader, type Principal, PrincipalSchema } from '@mcp-platform/protocol-contracts';

/** What crosses every hop beside the payload (DESIGN.md §4): principal, deadline, trace context. */
export interface CallContext {
  principal?: Principal;
  /** Absolute deadline in epoch milliseconds. */
  deadline?: number;
  traceparent?: string;
  tracestate?: string;
}

/** Read access to message headers, whatever the transport. */
export interface HeaderReader {
  get(name: string): string | undefined;
}

export function contextToHeaders(context: CallContext | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!context) return headers;
  if (context.principal) headers[MessageHeader.Principal] = JSON.stringify(context.principal);
  if (context.deadline !== undefined) headers[MessageHeader.Deadline] = String(context.deadline);
  if (context.traceparent) headers[MessageHeader.TraceParent] = context.traceparent;
  if (context.tracestate) headers[MessageHeader.TraceState] = context.tracestate;
  return headers;
}

export function contextFromHeaders(headers: HeaderReader | undefined): CallContext {
  const context: CallContext = {};
  if (!headers) return context;
  const principal = headers.get(MessageHeader.Principal);
  if (principal) {
    // The principal is set by our own broker; a malformed one is dropped, never trusted.
    const parsed = PrincipalSchema.safeParse(safeJson(principal));
    if (parsed.success) context.principal = parsed.data;
  }
  const deadline = Number(headers.get(MessageHeader.Deadline));
  if (Number.isFinite(deadline) && deadline > 0) context.deadline = deadline;
  const traceparent = headers.get(MessageHeader.TraceParent);
  if (traceparent) context.traceparent = traceparent;
  const tracestate = headers.get(MessageHeader.TraceState);
  if (tracestate) context.tracestate = tracestate;
  return context;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
