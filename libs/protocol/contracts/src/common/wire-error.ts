import { z } from 'zod';

/**
 * Error codes that cross NATS. Stable and documented: a receiver maps each one to its own
 * transport (the broker to JSON-RPC codes and HTTP statuses) with an exhaustive switch.
 */
export const WireErrorCode = {
  /** The request did not match the contract's schema. */
  InvalidRequest: 'INVALID_REQUEST',
  /** The request was well-formed but names something that does not exist or is not allowed (unknown tool, bad cursor). */
  InvalidParams: 'INVALID_PARAMS',
  /** The addressed entity does not exist (a virtual server, a session). */
  NotFound: 'NOT_FOUND',
  /** The caller may not do this. */
  Forbidden: 'FORBIDDEN',
  /**
   * The caller's token lacks scopes the operation needs; `data` is `{ scopes: string[] }`, every scope
   * the operation requires (the broker answers 403 `insufficient_scope` with them, S-142/S-143).
   */
  InsufficientScope: 'INSUFFICIENT_SCOPE',
  /**
   * The operation exists but not in the form asked (a task-augmented call of a tool that forbids tasks,
   * a plain call of a tool that requires one: S-197); the broker answers `-32601`.
   */
  Unsupported: 'UNSUPPORTED',
  /**
   * The operation needs a client capability the request did not declare (a tool that asks for sampling,
   * elicitation or roots, a tool that runs only as a task without the tasks extension); `data` is
   * `{ requiredCapabilities }`, the missing part of the client's capabilities (the broker answers
   * `-32021`, S-38). Only requests that declare their capabilities per request (2026-07-28) get it.
   */
  MissingClientCapability: 'MISSING_CLIENT_CAPABILITY',
  /**
   * The request's mirrored headers disagree with its body: an `Mcp-Param-*` header missing, malformed or
   * unlike the argument it mirrors (S-116); the message names the header. The broker answers HTTP 400
   * with `-32020` HeaderMismatch (S-115).
   */
  HeaderMismatch: 'HEADER_MISMATCH',
  /** The deadline passed before an answer came. */
  Timeout: 'TIMEOUT',
  /** The call was cancelled by its caller. */
  Cancelled: 'CANCELLED',
  /** No service answered the subject (nothing subscribed). */
  Unavailable: 'UNAVAILABLE',
  /** Anything unexpected; the message carries an error id that the service logged. */
  Internal: 'INTERNAL',
} as const;
export type WireErrorCode = (typeof WireErrorCode)[keyof typeof WireErrorCode];

/** The error half of every reply envelope. */
export const WireErrorSchema = z.object({
  code: z.enum(Object.values(WireErrorCode) as [WireErrorCode, ...WireErrorCode[]]),
  message: z.string(),
  data: z.unknown().optional(),
  errorId: z.string().optional(),
});
export type WireError = z.infer<typeof WireErrorSchema>;

/** Every RPC reply is one of these two shapes; the typed client unwraps it. */
export type ReplyEnvelope<T> = { ok: true; value: T } | { ok: false; error: WireError };
