import { z } from 'zod';

/**
 * The verified caller, as the session broker established it at the edge. It travels in NATS
 * headers (never the bearer token itself: no token passthrough, DESIGN.md §4).
 */
export const PrincipalSchema = z.object({
  /** The subject of the access token, or `anonymous` on a public virtual server. */
  subject: z.string().min(1),
  /** The tenant the principal belongs to; every query is scoped by it. */
  tenant: z.string().min(1),
  /** The OAuth client the token was issued to, when known. */
  clientId: z.string().optional(),
  /** Granted scopes. */
  scopes: z.array(z.string()),
  /**
   * The scopes of this virtual server the caller could hold by stepping up (the granted ones included),
   * from its token's `obtainable_scope`: tools needing them are listed, so a client can call one and
   * meet the 403 step-up challenge (issue 13 item 13). Absent: nothing beyond `scopes` (anonymous callers).
   */
  obtainableScopes: z.array(z.string()).optional(),
  /** True when no token was presented (public virtual servers only). */
  anonymous: z.boolean(),
});
export type Principal = z.infer<typeof PrincipalSchema>;

/** Names of the NATS headers every hop carries (DESIGN.md §4). */
export const MessageHeader = {
  Principal: 'mcp-principal',
  /** Absolute deadline, milliseconds since the epoch. */
  Deadline: 'mcp-deadline',
  TraceParent: 'traceparent',
  TraceState: 'tracestate',
} as const;
