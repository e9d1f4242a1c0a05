import type { z } from 'zod';
import type { UpstreamTask } from '@mcp-platform/protocol-contracts';
import type {
  CallToolResult,
  CreateMessageRequestParamsSchema,
  CreateMessageResultSchema,
  ElicitRequestParamsSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
  LoggingLevel,
} from '@mcp-platform/protocol-mcp';
import type { Clock } from '@mcp-platform/shared-clock';

export type CreateMessageParams = z.input<typeof CreateMessageRequestParamsSchema>;
export type CreateMessageResult = z.infer<typeof CreateMessageResultSchema>;
export type ElicitParams = z.input<typeof ElicitRequestParamsSchema>;
export type ElicitResult = z.infer<typeof ElicitResultSchema>;
export type ListRootsResult = z.infer<typeof ListRootsResultSchema>;

/**
 * What a running tool may ask the client, in either protocol era: the platform sends the request on
 * the call's stream and routes the answer back (legacy), or turns it into an input request of a multi
 * round-trip result (modern). A tool asks only for what the client declared (`capabilities`); asking
 * for more rejects with {@link ClientCapabilityMissing} without sending anything (S-316, S-331, S-340).
 */
export interface ClientRequests {
  /** The client's declared capabilities (legacy: at `initialize`; modern: on this request). */
  readonly capabilities: Readonly<Record<string, unknown>>;
  /** `sampling/createMessage` (S-332): needs `sampling`, and `sampling.tools` when `tools` are sent. */
  createMessage(params: CreateMessageParams, options?: AskOptions): Promise<CreateMessageResult>;
  /** `elicitation/create` (S-317): needs `elicitation` (`{}` is form only), `elicitation.url` for URL mode. */
  elicit(params: ElicitParams, options?: AskOptions): Promise<ElicitResult>;
  /** `roots/list` (S-341): needs `roots`. */
  listRoots(options?: AskOptions): Promise<ListRootsResult>;
  /**
   * Listens for the client's `notifications/roots/list_changed` (S-342), e.g. to list the roots again
   * (they may have disappeared, S-343), while the call runs; returns a function that stops listening.
   * Only a legacy call whose client declared `roots.listChanged` ever hears it: otherwise (a client
   * without it; the modern era, which removed the notification) the registration does nothing and the
   * listener is never called. A listener's error (or rejection) is logged, never thrown at the tool.
   */
  onRootsChanged(listener: RootsChangedListener): () => void;
  /**
   * Tells the client that a URL-mode elicitation this call sent (`elicit({ mode: 'url', elicitationId, … })`)
   * finished out of band: `notifications/elicitation/complete` (S-327), to the client that got the
   * elicitation only (legacy era), once per elicitation. Throws {@link UnknownElicitation}, sending
   * nothing, for an id this call did not send in URL mode or already completed. Modern era: does
   * nothing (the notification was removed there: the client retries the request instead, S-330).
   */
  completeElicitation(elicitationId: string): void;
}

/** How one request to the client is asked. */
export interface AskOptions {
  /**
   * Modern era: the request's key in the round's `inputRequests` (S-61), where the client's answer
   * comes back; unique within one run of the tool. Default `input-<n>` for the run's `n`-th request.
   * The legacy era sends requests with ids of its own and ignores it.
   */
  inputKey?: string;
}

/** Called when the client's roots changed; a returned promise's rejection is logged. */
export type RootsChangedListener = () => void | Promise<void>;

/**
 * The client did not declare what the tool wanted to ask of it; nothing was sent. `required` is the
 * missing part as client capabilities spell it (e.g. `{ sampling: { tools: {} } }`): what a modern
 * call's `-32021` names in `data.requiredCapabilities` (S-38).
 */
export class ClientCapabilityMissing extends Error {
  constructor(
    readonly capability: string,
    readonly required: Record<string, unknown> = {},
  ) {
    super(`the client does not support ${capability}`);
    this.name = 'ClientCapabilityMissing';
  }
}

/** `completeElicitation` named no URL-mode elicitation of this call awaiting completion; nothing was sent. */
export class UnknownElicitation extends Error {
  constructor(readonly elicitationId: string) {
    super(`this call sent no URL-mode elicitation ${JSON.stringify(elicitationId.slice(0, 128))} that awaits completion`);
    this.name = 'UnknownElicitation';
  }
}

/** The client answered a request with a JSON-RPC error (e.g. `-1` for a sampling request the user rejected, S-338). */
export class ClientRequestFailed extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ClientRequestFailed';
  }
}

/**
 * A tool's run failed in a way that is not the tool's to report (a crash of its backend, a broken
 * invariant): the call answers a JSON-RPC internal error (`-32603`) instead of an `isError` result, and a
 * task running it ends `failed` with that error (SEP-2663: `failed` is for protocol-level errors; a tool
 * error is `completed` with `isError`). Any other error a tool throws stays an `isError` result.
 */
export class ToolProtocolFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolProtocolFailure';
  }
}

/** What a running tool may use besides its arguments. */
export interface ToolContext {
  /** Aborts on cancellation (`callCancelled`) or when the tool's timeout passes. */
  signal: AbortSignal;
  clock: Clock;
  /**
   * Reports progress to the caller when it asked for it. Values must strictly increase (S-266);
   * others are dropped. Nothing is sent after the call completes (S-267).
   */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends `notifications/message` when the caller asked for logs at or below `level` (S-235). */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
  /** The level the caller asked logs at; absent when it asked for none (nothing `log` sends reaches it). */
  readonly logLevel?: LoggingLevel;
  /** Requests to the client (sampling, elicitation, roots), its roots changes, elicitation completions. */
  client: ClientRequests;
  /**
   * Asks the platform to close the client's connection to this call now, after what was sent (SSE
   * polling, S-81): the call goes on, and the client reconnects after the `retry` delay and reads the
   * rest from the call's stream log. Does nothing where the connection cannot be resumed (the modern
   * era, where closing the stream cancels; a call without a session).
   */
  closeConnection(): void;
  /**
   * How the call relates to tasks, when it does: `offer`, a modern caller offered to run it as a task and
   * the tool may decide now (by throwing {@link RunsAsTask}); `run`, it is a task's run, with the upstream
   * server's task the platform task was created for ({@link RunsAsTask.upstreamTask}), when it was.
   */
  readonly task?: { mode: 'offer' } | { mode: 'run'; upstreamTask?: UpstreamTask };
  /**
   * Modern era, the retry of a call whose last round ended with {@link AsksClient}: the continuation that
   * round gave (the broker kept it sealed in the client's `requestState`). The answers are the call's
   * input responses, by the keys that round asked.
   */
  readonly continuation?: Readonly<Record<string, unknown>>;
}

/** One request a modern call's round asks its client (an `inputRequests` entry, S-63). */
export interface InputRequestOfRound {
  method: 'sampling/createMessage' | 'elicitation/create' | 'roots/list';
  params?: Record<string, unknown>;
}

/**
 * Thrown by a tool of a modern call that words its client's input requests itself, under keys of its
 * own (an upstream server's `input_required` passed through): the round ends with these requests, and
 * the retry brings the answers and `continuation` back ({@link ToolContext.continuation}). Requests for
 * what the client did not declare are refused as any tool's (`-32021`, S-38).
 */
export class AsksClient extends Error {
  constructor(
    readonly inputRequests: Readonly<Record<string, InputRequestOfRound>>,
    readonly continuation?: Readonly<Record<string, unknown>>,
  ) {
    super(`the call asks its client ${Object.keys(inputRequests).length} request(s) first`);
    this.name = 'AsksClient';
  }
}

/**
 * Thrown by a tool of a call offered as a task (`task.mode === 'offer'`): the call becomes a platform
 * task, created for `upstreamTask` (the task an upstream server created for the call) when there is one:
 * its runs read it back from `task.upstreamTask`.
 */
export class RunsAsTask extends Error {
  constructor(readonly upstreamTask?: UpstreamTask) {
    super('the call runs as a task');
    this.name = 'RunsAsTask';
  }
}

/** The tool can only run as a task and this call is not one: answered like a built-in tool requiring tasks (S-197, S-295). */
export class TaskRequired extends Error {
  constructor() {
    super('the tool can only run as a task');
    this.name = 'TaskRequired';
  }
}

/** A tool's arguments after validation against its inputSchema (an object; `{}` when none were sent). */
export type ToolArguments = Record<string, unknown>;

/**
 * Runs one call of a tool. Throwing means a failure inside the tool: the caller gets an `isError` result
 * (a {@link ToolProtocolFailure}: a JSON-RPC internal error).
 */
export type ToolImplementation = (args: ToolArguments, context: ToolContext) => Promise<CallToolResult>;
