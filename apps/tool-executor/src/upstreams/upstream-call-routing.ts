import { AsyncLocalStorage } from 'node:async_hooks';
import { type Client, CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import { Injectable, Logger } from '@nestjs/common';
import { type LoggingLevel, RELATED_TASK_META_KEY } from '@mcp-platform/protocol-mcp';
import { InputRequired } from '../tools/client-requests';
import {
  type AskOptions,
  ClientCapabilityMissing,
  ClientRequestFailed,
  type ClientRequests,
  type CreateMessageParams,
  type ElicitParams,
  type ToolContext,
} from '../tools/tool-context';

/**
 * What the platform declares to every upstream: it can ask its callers for all of it. Whether the
 * caller of a given call can is checked per request (the caller's own capabilities), so an upstream
 * asking a caller for what that caller never declared is refused without reaching it.
 */
export const UPSTREAM_CLIENT_CAPABILITIES = {
  sampling: { tools: {} },
  elicitation: { form: {}, url: {} },
  roots: {},
};

/** The client capabilities a modern upstream is told a call's caller has: the ones it may ask for. */
const FORWARDED_CAPABILITIES = Object.keys(UPSTREAM_CLIENT_CAPABILITIES);

/** One call to an upstream, while it runs: its caller, and how to stop it when its caller must be asked first. */
interface CallScope {
  client: Client;
  context: ToolContext;
  stop(reason: Error): void;
}

/** A call's route to its upstream: the signal to send the request with, and the rejection that stops it early. */
export interface CallRoute {
  /** Aborts when the call is cancelled or times out, or when the upstream asked what the caller must answer first. */
  readonly signal: AbortSignal;
  /** Runs `work` (the request to `client`) as this call's: what the upstream asks or logs meanwhile reaches this call's caller. */
  within<T>(client: Client, work: () => Promise<T>): Promise<T>;
  /** Rejects when the route stopped the call itself (a modern caller's answer is needed: {@link InputRequired}). */
  readonly stopped: Promise<never>;
  /** `_meta` to send the request with on a modern connection: the caller's capabilities and log level. */
  meta(client: Client): Record<string, unknown> | undefined;
  /**
   * Asks this call's caller again what the upstream's task `taskId` asked on `client` in an earlier run
   * that had to stop for the answer (a modern caller's), and answers the upstream: throws
   * {@link InputRequired} while the caller has not answered.
   */
  answerParked(client: Client, taskId: string): Promise<void>;
  close(): void;
}

/** How one of the caller's requests is asked: with the input key a modern caller answers under, when it is known. */
type Ask<T> = (caller: ClientRequests, options?: AskOptions) => Promise<T>;

/**
 * A request an upstream's task made (2025-11-25 core tasks: it carries related-task metadata) that a
 * modern caller must answer first: the upstream keeps waiting for its answer while the platform task is
 * `input_required`, and the task's next run on this replica asks the caller again under the same key.
 */
interface ParkedRequest {
  key: string;
  ask: Ask<unknown>;
  answer(value: unknown): void;
  refuse(error: Error): void;
}

/**
 * Routes what an upstream asks or says during a call to that call's caller, in the caller's era:
 * `sampling/createMessage`, `elicitation/create` and `roots/list` go through the call's
 * {@link ClientRequests} (a legacy caller gets a server-to-client request on its stream, a modern one an
 * `input_required` round), `notifications/message` through the call's log (at the caller's level), and
 * `notifications/elicitation/complete` to the caller that got the elicitation.
 *
 * Which call a message belongs to: the one whose request the message came with. The SDK reads an
 * upstream's answer stream (a legacy POST's SSE stream, a modern request's response) inside the async
 * context of the request that opened it, so the call's scope travels with it. A message that arrives
 * elsewhere (a stdio pipe, the standalone GET stream, the deprecated SSE transport) belongs to the one
 * call in flight on that connection; with none, or several, it belongs to no call: a request is then
 * refused (`roots/list` answers no roots) and a log line is dropped.
 */
@Injectable()
export class UpstreamCallRouting {
  private readonly logger = new Logger(UpstreamCallRouting.name);
  private readonly scope = new AsyncLocalStorage<CallScope>();
  private readonly active = new WeakMap<Client, Set<CallScope>>();
  private readonly parked = new WeakMap<Client, Map<string, ParkedRequest[]>>();

  /** Opens the route of one call; `close` it when the call ends. */
  open(context: ToolContext): CallRoute {
    const controller = new AbortController();
    const forward = (): void => controller.abort(context.signal.reason);
    if (context.signal.aborted) forward();
    else context.signal.addEventListener('abort', forward, { once: true });
    let reject: (reason: Error) => void = () => undefined;
    const stopped = new Promise<never>((_resolve, rejectStopped) => (reject = rejectStopped));
    stopped.catch(() => undefined);
    const scopes: CallScope[] = [];
    const stop = (reason: Error): void => {
      controller.abort(reason);
      reject(reason);
    };
    return {
      signal: controller.signal,
      stopped,
      within: <T>(client: Client, work: () => Promise<T>): Promise<T> => {
        const scope: CallScope = { client, context, stop };
        scopes.push(scope);
        this.activeOn(client).add(scope);
        return this.scope.run(scope, work).finally(() => this.active.get(client)?.delete(scope));
      },
      meta: (client) => (client.getProtocolEra() === 'modern' ? modernMeta(context) : undefined),
      answerParked: (client, taskId) => this.answerParked(client, taskId, context.client),
      close: () => {
        context.signal.removeEventListener('abort', forward);
        for (const scope of scopes) this.active.get(scope.client)?.delete(scope);
      },
    };
  }

  /** Registers the handlers of what an upstream may ask or say on a new connection's client (before it connects). */
  attach(client: Client, label: string): void {
    client.setRequestHandler('sampling/createMessage', (request) =>
      this.ask(client, label, 'sampling', (caller, options) => caller.createMessage(withoutRelatedTask(request.params) as CreateMessageParams, options), {
        task: relatedTaskOf(request.params),
      }),
    );
    client.setRequestHandler('elicitation/create', (request) =>
      this.ask(client, label, 'elicitation', (caller, options) => caller.elicit(withoutRelatedTask(request.params) as ElicitParams, options), {
        task: relatedTaskOf(request.params),
      }),
    );
    // Roots are a caller's; asked outside any call (at the upstream's start, say) there are none to give.
    client.setRequestHandler('roots/list', () => this.ask(client, label, 'roots', (caller) => caller.listRoots(), { outsideCall: { roots: [] } }));
    client.setNotificationHandler('notifications/message', (notification) => {
      const { level, data, logger } = notification.params;
      this.scopeOf(client)?.context.log(level as LoggingLevel, data, logger);
    });
    client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
      try {
        this.scopeOf(client)?.context.client.completeElicitation(notification.params.elicitationId);
      } catch (error) {
        this.logger.warn(`upstream ${label} completed an elicitation its call did not send: ${(error as Error).message}`);
      }
    });
  }

  /**
   * Asks the caller of the call the request belongs to, and answers the upstream what the caller answered.
   * `task`: the upstream's task the request belongs to (its related-task metadata).
   */
  private async ask<T>(client: Client, label: string, what: string, send: Ask<T>, options: { outsideCall?: T; task?: string | undefined } = {}): Promise<T> {
    const scope = this.scopeOf(client);
    if (!scope) {
      if (options.outsideCall !== undefined) return options.outsideCall;
      this.logger.warn(
        `upstream ${label} asked for ${what} outside any call (or while several calls ran on a connection that cannot tell them apart): refused`,
      );
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `${what} can only be asked during a tool call this request belongs to`);
    }
    try {
      return await send(scope.context.client);
    } catch (error) {
      if (!(error instanceof InputRequired)) throw wireError(error, what);
      // A modern caller answers with its next request: this run of the call ends here (the upstream is cancelled)…
      scope.stop(error);
      // …unless the request is its task's, which the upstream keeps waiting for: the task's next run answers it.
      if (options.task !== undefined) return this.park(client, options.task, error.key, send);
      throw new ProtocolError(ProtocolErrorCode.InternalError, 'the call stopped to ask its client; it will be made again with the answer');
    }
  }

  private park<T>(client: Client, taskId: string, key: string, ask: Ask<T>): Promise<T> {
    const byTask = this.parked.get(client) ?? new Map<string, ParkedRequest[]>();
    this.parked.set(client, byTask);
    return new Promise<T>((answer, refuse) => {
      byTask.set(taskId, [...(byTask.get(taskId) ?? []), { key, ask, answer: answer as (value: unknown) => void, refuse }]);
    });
  }

  /** See {@link CallRoute.answerParked}. */
  private async answerParked(client: Client, taskId: string, caller: ClientRequests): Promise<void> {
    const byTask = this.parked.get(client);
    for (const parked of byTask?.get(taskId) ?? []) {
      try {
        parked.answer(await parked.ask(caller, { inputKey: parked.key }));
      } catch (error) {
        if (error instanceof InputRequired) throw error;
        parked.refuse(wireError(error, 'input'));
      }
      const left = (byTask?.get(taskId) ?? []).filter((other) => other !== parked);
      if (left.length) byTask?.set(taskId, left);
      else byTask?.delete(taskId);
    }
  }

  /** The call a message on `client` belongs to (see the class comment). */
  private scopeOf(client: Client): CallScope | undefined {
    const current = this.scope.getStore();
    if (current?.client === client) return current;
    const running = this.active.get(client);
    return running?.size === 1 ? [...running][0] : undefined;
  }

  private activeOn(client: Client): Set<CallScope> {
    let scopes = this.active.get(client);
    if (!scopes) this.active.set(client, (scopes = new Set()));
    return scopes;
  }
}

/**
 * The 2026-07-28 per-request `_meta` of a call: the caller's capabilities the upstream may use (so a
 * modern upstream asks only for what the caller can answer) and the caller's log level (without one,
 * a modern upstream sends no log).
 */
function modernMeta(context: ToolContext): Record<string, unknown> {
  const capabilities = Object.fromEntries(Object.entries(context.client.capabilities).filter(([key]) => FORWARDED_CAPABILITIES.includes(key)));
  return { [CLIENT_CAPABILITIES_META_KEY]: capabilities, ...(context.logLevel === undefined ? {} : { [LOG_LEVEL_META_KEY]: context.logLevel }) };
}

/** The upstream task a request of an upstream belongs to (its related-task metadata), if any. */
function relatedTaskOf(params: unknown): string | undefined {
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const taskId = (meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined)?.taskId;
  return typeof taskId === 'string' ? taskId : undefined;
}

/** A request's params without the related-task metadata: it names the upstream's task, not the platform's. */
function withoutRelatedTask<P extends { _meta?: Record<string, unknown> }>(params: P): P {
  if (params._meta?.[RELATED_TASK_META_KEY] === undefined) return params;
  const { [RELATED_TASK_META_KEY]: _upstreams, ...meta } = params._meta;
  return { ...params, _meta: meta };
}

/** What the upstream is answered when its caller could not be asked. */
function wireError(error: unknown, what: string): ProtocolError {
  if (error instanceof ClientCapabilityMissing)
    return new ProtocolError(ProtocolErrorCode.MethodNotFound, `the client of this call does not support ${error.capability}`);
  if (error instanceof ClientRequestFailed) return new ProtocolError(error.code, error.message, error.data);
  return new ProtocolError(ProtocolErrorCode.InternalError, `the platform could not ask its client for ${what}`);
}
