import { z } from 'zod';
import { CallToolResultSchema, LoggingLevelSchema, RequestIdSchema, ToolSchema } from '@mcp-platform/protocol-mcp';
import { ContinuationSchema, type InputRequired, InputRequiredSchema } from '../common/input-required';
import { UpstreamTaskSchema } from '../common/upstream-task';
import { defineEvent, defineRpc, type RpcResponse } from '../define-contract';

const TenantServer = {
  /** Tenant slug, e.g. `demo`. */
  tenant: z.string().min(1).max(64),
  /** Virtual server slug inside the tenant, e.g. `default`. */
  server: z.string().min(1).max(64),
};

/** One page of the tools a virtual server exposes to the caller, in a deterministic order. */
export const listTools = defineRpc({
  subject: 'tool-executor.v1.tool.list',
  request: z.object({
    ...TenantServer,
    /**
     * Opaque cursor from an earlier page (S-239); absent for the first page. Its length is the
     * executor's to judge, so a client's bad cursor is `INVALID_PARAMS` (-32602, S-243).
     */
    cursor: z.string().optional(),
  }),
  response: z.object({
    tools: z.array(ToolSchema),
    nextCursor: z.string().optional(),
    /** Caching hints for the modern era (S-246..S-249), computed by the owner of the data. */
    ttlMs: z.number().int().nonnegative(),
    cacheScope: z.enum(['public', 'private']),
  }),
});

/** Where a running call sends its messages for the client, and which notifications the caller asked for. */
export const CallNotifySchema = z.object({
  /** Route token of the broker replica that holds the caller's stream (see `callMessage`). */
  route: z.string().min(1),
  /** The request's `_meta.progressToken`, echoed on every `notifications/progress` (S-264); absent: no progress. */
  progressToken: z.union([z.string(), z.number().int()]).optional(),
  /** Minimum level of `notifications/message` to forward; absent means none (S-34, S-233). */
  logLevel: LoggingLevelSchema.optional(),
});
export type CallNotify = z.infer<typeof CallNotifySchema>;

// What a modern call answers instead of a result when it needs its client's input: the era-neutral
// shapes of common/input-required.ts, under the names this contract has always used.
export {
  type InputRequest as CallInputRequest,
  InputRequestSchema as CallInputRequestSchema,
  type InputRequired as CallInputRequired,
  InputRequiredSchema as CallInputRequiredSchema,
  type ClientRequestMethod,
  ClientRequestMethodSchema,
} from '../common/input-required';

/** What a tool says about running as a task (S-197): `forbidden` (the default), `optional`, `required`. */
export const TaskSupportSchema = z.enum(['forbidden', 'optional', 'required']);
export type TaskSupport = z.infer<typeof TaskSupportSchema>;

/**
 * A modern call the caller offered to run as a task (`taskMode: 'offer'`) of a tool that allows tasks:
 * the tool did not run; the caller creates a task instead (the server decides, S-296). `inputResponses`:
 * the answers to what the tool asks before its task exists (its `beforeTask` inputs, gathered by
 * `input_required` rounds first), for the task to be created with. `upstreamTask`: the task an upstream
 * server created for the call (issue 15 §4), which the task's runs follow; should the platform task not be
 * created, the creator says so with `upstreamTaskAbandoned`, so that task does not run on unseen.
 */
export const CallRunAsTaskSchema = z.strictObject({
  runAsTask: z.literal(true),
  inputResponses: z.record(z.string().min(1).max(256), z.unknown()).optional(),
  upstreamTask: UpstreamTaskSchema.optional(),
});
export type CallRunAsTask = z.infer<typeof CallRunAsTaskSchema>;

/** Whether a `callTool` response asks for input rather than carrying the tool's result. */
export function isCallInputRequired(response: RpcResponse<typeof callTool>): response is InputRequired {
  return Object.hasOwn(response, 'inputRequired');
}

/** Whether a `callTool` response says the call should run as a task instead. */
export function isCallRunAsTask(response: RpcResponse<typeof callTool>): response is CallRunAsTask {
  return Object.hasOwn(response, 'runAsTask');
}

/**
 * Runs one tool call. Tool failures are results with `isError: true`; protocol failures are wire
 * errors; a modern call whose tool needs its client's input answers `{ inputRequired }`.
 */
export const callTool = defineRpc({
  subject: 'tool-executor.v1.tool.call',
  request: z.object({
    ...TenantServer,
    /** Platform-wide id of this call, minted by the broker; cancellation and notifications use it. */
    callId: z.string().min(1).max(128),
    name: z.string().min(1).max(256),
    arguments: z.record(z.string(), z.unknown()).optional(),
    /** The protocol revision the caller speaks (a tool may shape its answer by it). */
    protocolVersion: z.string(),
    notify: CallNotifySchema.optional(),
    /**
     * What the client declared it supports (legacy: at `initialize`; modern: on this request, S-32):
     * a tool asks the client only for what it declared (sampling, elicitation, roots).
     */
    clientCapabilities: z.record(z.string(), z.unknown()).optional(),
    /**
     * A legacy call's resumable stream (S-89, S-90): the executor, its only writer, appends every message
     * of the call and then its outcome to the event log under `key` (positions 1, 2, 3…) before sending
     * them, so any broker replica can replay them to a client that reconnects with `Last-Event-ID`.
     * `primeAfterMs`: when the broker gives a still silent call's response its priming event (absent:
     * never); a call that sends nothing and ends well before that left the client no id to resume from,
     * so its outcome is not logged.
     */
    stream: z.object({ key: z.string().min(1).max(200), requestId: RequestIdSchema, primeAfterMs: z.number().int().nonnegative().optional() }).optional(),
    /** The legacy session the call belongs to: only answers from it complete the call's requests to the client. */
    sessionId: z.string().min(1).max(256).optional(),
    /**
     * Modern era (multi round-trip requests, S-60): the client's answers to the input requests of
     * earlier rounds of this call, by input key (the broker merges them from the sealed `requestState`
     * and the retry's `inputResponses`). Each is validated by the executor against the result schema
     * of the method it answers.
     */
    inputResponses: z.record(z.string().min(1).max(256), z.unknown()).optional(),
    /** Modern era: what this call's last round answered as its `continuation`, from the sealed `requestState`. */
    continuation: ContinuationSchema.optional(),
    /**
     * How the call relates to tasks (S-197, S-296): `task`, it is a task's run (a tool requiring tasks may
     * run); `offer`, the caller may turn it into a task (a tool allowing tasks answers `{ runAsTask }`
     * without running); absent, a plain call (a tool requiring tasks is `UNSUPPORTED`).
     */
    taskMode: z.enum(['task', 'offer']).optional(),
    /** A task's run (`taskMode: 'task'`) of a task created for an upstream server's task: the run follows that task. */
    upstreamTask: UpstreamTaskSchema.optional(),
    /**
     * Stateless wire (2026-07-28) only: the request's `Mcp-Param-*` headers by lowercase name after the
     * prefix, as they came (SEP-2243). The executor, which knows the tool's `x-mcp-header` declarations,
     * checks them against `arguments` (`HEADER_MISMATCH`, S-116); absent (legacy calls, task runs): not checked.
     */
    paramHeaders: z.record(z.string().min(1).max(256), z.string().max(8192)).optional(),
  }),
  // CallToolResultSchema is loose and defaults `content`: it would read an input-required answer (or
  // a malformed one) as an empty result. Hence the strict shape first, and no `inputRequired` in results.
  response: z.union([
    InputRequiredSchema,
    CallRunAsTaskSchema,
    CallToolResultSchema.refine(
      (result) => !Object.hasOwn(result, 'inputRequired') && !Object.hasOwn(result, 'runAsTask'),
      'a tool result has no inputRequired or runAsTask',
    ),
  ]),
  // The executor enforces each tool's own timeout; this only bounds a lost reply.
  timeoutMs: 15 * 60_000,
});

/**
 * What the task scheduler needs to know before it creates a task for a call (principal in the headers):
 * whether the tool allows tasks, and whether running it twice is harmless (`annotations.idempotentHint`:
 * a task whose worker died mid-run runs again only then). Unknown tool: `INVALID_PARAMS`; a caller who may
 * not call it: `FORBIDDEN` / `INSUFFICIENT_SCOPE`, as for `callTool`.
 */
export const describeToolCall = defineRpc({
  subject: 'tool-executor.v1.tool.describe',
  request: z.object({ ...TenantServer, name: z.string().min(1).max(256) }),
  response: z.object({ taskSupport: TaskSupportSchema, idempotent: z.boolean() }),
});

/** Stops a running call (legacy `notifications/cancelled`, or a modern stream closed by its client). */
export const callCancelled = defineEvent({
  subject: 'tool-executor.v1.call.cancelled',
  delivery: 'all',
  payload: z.object({
    callId: z.string().min(1),
    reason: z.string().max(1024).optional(),
  }),
});

/**
 * An offer answered `runAsTask` with an `upstreamTask`, and the platform task for it could not be created
 * (issue 15 §4): the executor cancels the upstream's task (best effort), which nobody would follow.
 */
export const upstreamTaskAbandoned = defineEvent({
  subject: 'tool-executor.v1.upstream-task.abandoned',
  delivery: 'one',
  payload: z.object({
    ...TenantServer,
    /** The tool the offer called, as the caller named it. */
    name: z.string().min(1).max(256),
    upstreamTask: UpstreamTaskSchema,
    reason: z.string().max(1024).optional(),
  }),
});

/**
 * The JSON-RPC id of the `n`-th request a call sends its client: `<callId>#<n>`. Unique in the session
 * across replicas (call ids are), and it names the call, so any replica routes the answer.
 */
export function clientRequestId(callId: string, n: number): string {
  return `${callId}#${n}`;
}

/** The call a client request id belongs to, or `undefined` for an id the platform never issued. */
export function callIdOfClientRequest(id: unknown): string | undefined {
  if (typeof id !== 'string' || id.length > 160) return undefined;
  return /^([lmt]-[A-Za-z0-9_-]{1,125})#[1-9][0-9]{0,8}$/.exec(id)?.[1];
}

/**
 * A legacy client opened `tasks/result` for one of its tasks (S-286), in `sessionId` (the broker checked
 * first that the task is the caller's): the executor replica running the task sends the requests its tool
 * is still waiting on again (they may have gone out while no stream was open to carry them), and takes
 * answers from that session too.
 */
export const taskResultAwaited = defineEvent({
  subject: 'tool-executor.v1.task.result-awaited',
  delivery: 'all',
  payload: z.object({ taskId: z.string().min(1).max(128), sessionId: z.string().min(1).max(256) }),
});

/** A JSON-RPC error as the client answered it. */
export const ClientErrorSchema = z.object({ code: z.number().int(), message: z.string().max(4_096), data: z.unknown().optional() });

/**
 * The client's answer to a request a running call sent it (legacy era: a JSON-RPC response POSTed to
 * any broker replica). Every executor replica hears it; the one running the call completes the request
 * if `sessionId` is the call's own.
 */
export const callInputAnswered = defineEvent({
  subject: 'tool-executor.v1.call.input-answered',
  delivery: 'all',
  payload: z.object({
    callId: z.string().min(1).max(128),
    /** The JSON-RPC id the request went out with (`<callId>#<n>`). */
    inputId: z.string().min(1).max(160),
    sessionId: z.string().min(1).max(256).optional(),
    outcome: z.union([z.object({ result: z.record(z.string(), z.unknown()) }), z.object({ error: ClientErrorSchema })]),
  }),
});

/**
 * A legacy client's roots changed (`notifications/roots/list_changed`, S-342, POSTed to any broker
 * replica). Every executor replica hears it; the running calls of the session whose client declared
 * `roots.listChanged` tell their tools, which may list the roots again. The modern era has no such
 * notification.
 */
export const sessionRootsChanged = defineEvent({
  subject: 'tool-executor.v1.session.roots-changed',
  delivery: 'all',
  payload: z.object({ sessionId: z.string().min(1).max(256) }),
});
