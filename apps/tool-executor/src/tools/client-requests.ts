import { Logger } from '@nestjs/common';
import type { z } from 'zod';
import { type EventPayload, toolExecutor } from '@mcp-platform/protocol-contracts';
import { CreateMessageResultSchema, ElicitResultSchema, ListRootsResultSchema } from '@mcp-platform/protocol-mcp';
import {
  type AskOptions,
  ClientCapabilityMissing,
  ClientRequestFailed,
  type ClientRequests,
  type CreateMessageParams,
  type CreateMessageResult,
  type ElicitParams,
  type ElicitResult,
  type ListRootsResult,
  type RootsChangedListener,
  UnknownElicitation,
} from './tool-context';

type ClientRequestMethod = toolExecutor.ClientRequestMethod;
type Answer = EventPayload<typeof toolExecutor.callInputAnswered>;
type Outcome = Answer['outcome'];

/** JSON-RPC `-32602`: what an answer that is not the result the request asked for counts as. */
const INVALID_PARAMS = -32602;

interface Waiting {
  /** Whether an answer POSTed in this session counts: the client that was asked. */
  answeredBy(sessionId: string | undefined): boolean;
  resolve(outcome: Outcome): void;
}

/**
 * The requests running calls of this replica have sent their clients, by input id, until the answer
 * comes back (from whichever broker replica the client POSTed it to: every executor hears every
 * answer, §3.2.3). An answer is taken only from a session that was asked (S-325): the call's own, and
 * for a task's run also the sessions of its owner that await it.
 */
export class PendingClientRequests {
  private readonly logger = new Logger(PendingClientRequests.name);
  private readonly waiting = new Map<string, Waiting>();

  /** Waits for the answer to `inputId`; rejects with the signal's reason when the call stops first. */
  wait(inputId: string, answeredBy: (sessionId: string | undefined) => boolean, signal: AbortSignal): Promise<Outcome> {
    return new Promise<Outcome>((resolve, reject) => {
      const onAbort = (): void => {
        this.waiting.delete(inputId);
        reject(signal.reason);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(inputId, {
        answeredBy,
        resolve: (outcome) => {
          signal.removeEventListener('abort', onAbort);
          resolve(outcome);
        },
      });
    });
  }

  /** Completes the request the answer is for, if this replica waits for it and the session was asked. */
  answer(answer: Answer): void {
    const waiting = this.waiting.get(answer.inputId);
    if (!waiting) return;
    if (!waiting.answeredBy(answer.sessionId)) {
      // spec S-325: an answer from anyone but the client that was asked completes nothing.
      this.logger.warn(`ignored an answer to ${answer.inputId} from another session`);
      return;
    }
    this.waiting.delete(answer.inputId);
    waiting.resolve(answer.outcome);
  }

  get size(): number {
    return this.waiting.size;
  }
}

/** How a legacy call reaches its client: on the call's stream, through the broker replica holding it. */
export interface ClientChannel {
  /** Sends one request of the call (sampling, elicitation, roots). */
  request(request: { inputId: string; method: ClientRequestMethod; params?: Record<string, unknown> }): void;
  /** Sends `notifications/elicitation/complete` for a URL-mode elicitation of the call (S-327). */
  elicitationCompleted(elicitationId: string): void;
  /** A request was answered, or the call stopped waiting for it. */
  settled(inputId: string): void;
  /** Whether answers from `sessionId`, not the call's own session, count too (a task's other sessions of its owner). */
  alsoAnsweredBy(sessionId: string): boolean;
}

/** A registration that does nothing: what `onRootsChanged` returns where no roots change is ever heard. */
const NOT_LISTENING = (): void => undefined;

/**
 * What every era's client requests share: a tool asks only for what the client declared (S-316,
 * S-331, S-340), refused with {@link ClientCapabilityMissing} before anything is sent; how a request
 * reaches the client is the subclass's `ask`.
 */
abstract class CapabilityGatedClient implements ClientRequests {
  /** What the client lacked for the requests refused so far. */
  private refused: Record<string, unknown> | undefined;

  constructor(readonly capabilities: Readonly<Record<string, unknown>>) {}

  createMessage(params: CreateMessageParams, options?: AskOptions): Promise<CreateMessageResult> {
    const missing = missingCapability(this.capabilities, 'sampling/createMessage', params);
    return missing ? this.refuse(missing) : this.ask('sampling/createMessage', params, CreateMessageResultSchema, options);
  }

  elicit(params: ElicitParams, options?: AskOptions): Promise<ElicitResult> {
    const missing = missingCapability(this.capabilities, 'elicitation/create', params);
    return missing ? this.refuse(missing) : this.ask('elicitation/create', params, ElicitResultSchema, options);
  }

  listRoots(options?: AskOptions): Promise<ListRootsResult> {
    const missing = missingCapability(this.capabilities, 'roots/list', undefined);
    return missing ? this.refuse(missing) : this.ask('roots/list', undefined, ListRootsResultSchema, options);
  }

  /** The capabilities the client lacked for requests of this call, merged: what a `-32021` names (S-38). */
  missingCapabilities(): Record<string, unknown> | undefined {
    return this.refused;
  }

  abstract onRootsChanged(listener: RootsChangedListener): () => void;

  abstract completeElicitation(elicitationId: string): void;

  /** Sends one request the client declared it supports and resolves with its validated answer. */
  protected abstract ask<T>(method: ClientRequestMethod, params: object | undefined, schema: z.ZodType<T>, options?: AskOptions): Promise<T>;

  private refuse(missing: ClientCapabilityMissing): Promise<never> {
    this.refused = mergeCapabilities(this.refused ?? {}, missing.required);
    return Promise.reject(missing);
  }
}

/**
 * What a client with `capabilities` lacks to be asked `method` with `params`, if anything: sampling
 * (and `sampling.tools` for tools, S-331), elicitation in the request's mode (`{}` is form only, S-316),
 * roots (S-340).
 */
export function missingCapability(
  capabilities: Readonly<Record<string, unknown>>,
  method: ClientRequestMethod,
  params: object | undefined,
): ClientCapabilityMissing | undefined {
  if (method === 'roots/list') return objectAt(capabilities, 'roots') ? undefined : new ClientCapabilityMissing('roots', { roots: {} });
  const fields = (params ?? {}) as Record<string, unknown>;
  if (method === 'sampling/createMessage') {
    const sampling = objectAt(capabilities, 'sampling');
    if (!sampling) return new ClientCapabilityMissing('sampling', { sampling: {} });
    const withTools = fields['tools'] !== undefined || fields['toolChoice'] !== undefined;
    return withTools && !objectAt(sampling, 'tools') ? new ClientCapabilityMissing('sampling with tools', { sampling: { tools: {} } }) : undefined;
  }
  return missingElicitation(capabilities, fields['mode'] === 'url' ? 'url' : 'form');
}

/** What a client with `capabilities` lacks to be asked an elicitation in `mode` (S-316: `elicitation: {}` is form mode only). */
function missingElicitation(capabilities: Readonly<Record<string, unknown>>, mode: 'form' | 'url'): ClientCapabilityMissing | undefined {
  const elicitation = objectAt(capabilities, 'elicitation');
  if (!elicitation) return new ClientCapabilityMissing('elicitation', { elicitation: mode === 'url' ? { url: {} } : {} });
  const declaresModes = objectAt(elicitation, 'form') !== undefined || objectAt(elicitation, 'url') !== undefined;
  const declared = mode === 'url' ? objectAt(elicitation, 'url') !== undefined : !declaresModes || objectAt(elicitation, 'form') !== undefined;
  return declared ? undefined : new ClientCapabilityMissing(`elicitation in ${mode} mode`, { elicitation: { [mode]: {} } });
}

/** The capabilities `missing` names, merged into one object as a `-32021`'s `requiredCapabilities` spells them (S-38). */
export function requiredCapabilities(missing: readonly ClientCapabilityMissing[]): Record<string, unknown> {
  return missing.reduce<Record<string, unknown>>((merged, one) => mergeCapabilities(merged, one.required), {});
}

/** `a` with every capability of `b` added, nested objects merged (`{ elicitation: { form: {} } }` and `{ elicitation: { url: {} } }`). */
function mergeCapabilities(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const existing = objectAt(merged, key);
    merged[key] = existing && typeof value === 'object' && value !== null ? mergeCapabilities(existing, value as Record<string, unknown>) : value;
  }
  return merged;
}

/** The client's answer as the result `schema` describes, or {@link ClientRequestFailed} (`-32602`) when it is not. */
function parseAnswer<T>(method: ClientRequestMethod, answer: unknown, schema: z.ZodType<T>): T {
  const parsed = schema.safeParse(answer);
  if (!parsed.success)
    throw new ClientRequestFailed(INVALID_PARAMS, `the client's answer to ${method} is malformed: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

/**
 * A call's requests to its client in the legacy era: each goes out as a JSON-RPC request whose id,
 * `<callId>#<n>`, is unique in the session across replicas and names the call, and the answer is
 * awaited here. Only what the client declared is asked (S-316, S-331, S-340). The client's roots
 * changes reach the call's listeners through {@link rootsChanged} (the executor calls it for the
 * running calls of the session that sent `notifications/roots/list_changed`).
 */
export class SessionClientRequests extends CapabilityGatedClient {
  private readonly logger = new Logger(SessionClientRequests.name);
  private sent = 0;
  /** The ids of the URL-mode elicitations this call sent and has not completed yet (S-327). */
  private readonly urlElicitations = new Set<string>();
  private readonly rootsListeners = new Set<RootsChangedListener>();

  constructor(
    private readonly callId: string,
    private readonly sessionId: string | undefined,
    capabilities: Readonly<Record<string, unknown>>,
    private readonly channel: ClientChannel,
    private readonly pending: PendingClientRequests,
    private readonly signal: AbortSignal,
  ) {
    super(capabilities);
  }

  onRootsChanged(listener: RootsChangedListener): () => void {
    // spec S-342: only a client that declared roots.listChanged sends the notification.
    if (objectAt(this.capabilities, 'roots')?.['listChanged'] !== true) return NOT_LISTENING;
    // A wrapper per registration: registering one function twice means two calls, each undone on its own.
    const registration = (): void | Promise<void> => listener();
    this.rootsListeners.add(registration);
    return () => void this.rootsListeners.delete(registration);
  }

  /** The client's roots changed: calls every listener; one that throws or rejects is logged and stops no other. */
  rootsChanged(): void {
    for (const listener of [...this.rootsListeners]) {
      try {
        const returned = listener();
        if (returned instanceof Promise) returned.catch((error: unknown) => this.listenerFailed(error));
      } catch (error) {
        this.listenerFailed(error);
      }
    }
  }

  completeElicitation(elicitationId: string): void {
    // spec S-327: only to the client that got the elicitation, i.e. for one this call sent in URL mode.
    if (!this.urlElicitations.has(elicitationId)) throw new UnknownElicitation(elicitationId);
    this.channel.elicitationCompleted(elicitationId);
    this.urlElicitations.delete(elicitationId);
  }

  protected async ask<T>(method: ClientRequestMethod, params: object | undefined, schema: z.ZodType<T>): Promise<T> {
    this.sent += 1;
    const inputId = toolExecutor.clientRequestId(this.callId, this.sent);
    // Waiting first: an answer can never arrive before anyone listens for it.
    const answered = this.pending.wait(
      inputId,
      (sessionId) => sessionId === this.sessionId || (sessionId !== undefined && this.channel.alsoAnsweredBy(sessionId)),
      this.signal,
    );
    this.channel.request({ inputId, method, ...(params === undefined ? {} : { params: params as Record<string, unknown> }) });
    const elicitationId = method === 'elicitation/create' ? urlElicitationId(params) : undefined;
    if (elicitationId !== undefined) this.urlElicitations.add(elicitationId);
    let outcome: Outcome;
    try {
      outcome = await answered;
    } finally {
      this.channel.settled(inputId);
    }
    if ('error' in outcome) throw new ClientRequestFailed(outcome.error.code, outcome.error.message, outcome.error.data);
    return parseAnswer(method, outcome.result, schema);
  }

  private listenerFailed(error: unknown): void {
    this.logger.warn(`a roots change listener of call ${this.callId} failed: ${(error as Error)?.message ?? String(error)}`);
  }
}

/** The `elicitationId` of URL-mode `elicitation/create` params (S-320), if they are that. */
function urlElicitationId(params: object | undefined): string | undefined {
  const fields = (params ?? {}) as Record<string, unknown>;
  return fields['mode'] === 'url' && typeof fields['elicitationId'] === 'string' ? fields['elicitationId'] : undefined;
}

/**
 * Why a modern call's run stopped: it asked its client something the call's input responses do not
 * answer yet. Internal to the executor: the call ends with the input requests instead of a result.
 */
export class InputRequired extends Error {
  constructor(readonly key: string) {
    super(`the client has not answered input request ${key} yet`);
    this.name = 'InputRequired';
  }
}

/** The input key of the `n`-th request one run of a tool makes (the same on every round: each retry runs the tool from the start). */
export function roundTripInputKey(n: number): string {
  return `input-${n}`;
}

/**
 * A call's requests to its client in the modern era (multi round-trip requests, S-60, §3.3.2): the
 * tool runs from the start on every round, and its `n`-th request is input key `input-<n>`. A request
 * the call's input responses answer resolves with that answer (validated, S-68); any other is recorded
 * and rejects with {@link InputRequired}, and the call then answers those requests instead of a result.
 * Requests asked together (`Promise.all`) before the run ends are collected in the same round.
 */
export class RoundTripClient extends CapabilityGatedClient {
  private asked = 0;
  private readonly keys = new Set<string>();
  private malformed: { key: string; message: string } | undefined;
  private readonly unanswered = new Map<string, toolExecutor.CallInputRequest>();

  constructor(
    capabilities: Readonly<Record<string, unknown>>,
    private readonly inputResponses: Readonly<Record<string, unknown>>,
  ) {
    super(capabilities);
  }

  /** The modern era has no `notifications/roots/list_changed` (S-342 is legacy only): never called. */
  onRootsChanged(_listener: RootsChangedListener): () => void {
    return NOT_LISTENING;
  }

  /**
   * Does nothing: the modern era has no `notifications/elicitation/complete` (S-327 is legacy only);
   * the client retries the request once the user is done, and the tool decides then (S-330).
   */
  completeElicitation(_elicitationId: string): void {
    return undefined;
  }

  /** The first answer of `inputResponses` this run read that is not the result its request asked for. */
  malformedAnswer(): { key: string; message: string } | undefined {
    return this.malformed;
  }

  /** The requests of this run the client has yet to answer, by input key; `undefined` when none. */
  inputRequests(): Record<string, toolExecutor.CallInputRequest> | undefined {
    return this.unanswered.size === 0 ? undefined : Object.fromEntries(this.unanswered);
  }

  protected ask<T>(method: ClientRequestMethod, params: object | undefined, schema: z.ZodType<T>, options?: AskOptions): Promise<T> {
    this.asked += 1;
    const key = options?.inputKey ?? roundTripInputKey(this.asked);
    if (this.keys.has(key)) return Promise.reject(new Error(`input key ${JSON.stringify(key)} was already asked in this run`));
    this.keys.add(key);
    if (Object.hasOwn(this.inputResponses, key)) {
      try {
        return Promise.resolve(parseAnswer(method, this.inputResponses[key], schema));
      } catch (error) {
        this.malformed ??= { key, message: (error as Error).message };
        return Promise.reject(error as Error);
      }
    }
    this.unanswered.set(key, { method, ...(params === undefined ? {} : { params: modernParams(method, params) }) });
    const refused = Promise.reject(new InputRequired(key));
    // A tool that drops this promise (it ended on another request first) must not take the process
    // down with an unhandled rejection; awaiting it still throws.
    refused.catch(() => undefined);
    return refused;
  }
}

/** A request's params as the modern era carries them: URL-mode elicitation has no `elicitationId` there (S-320). */
function modernParams(method: ClientRequestMethod, params: object): Record<string, unknown> {
  if (method !== 'elicitation/create' || !('elicitationId' in params)) return params as Record<string, unknown>;
  const { elicitationId: _dropped, ...rest } = params as Record<string, unknown>;
  return rest;
}

/**
 * The client requests of a call that cannot reach its client (a legacy call without a session or a
 * stream to answer on): every request is refused without sending anything.
 */
export class UnreachableClient implements ClientRequests {
  constructor(readonly capabilities: Readonly<Record<string, unknown>>) {}

  createMessage(): Promise<CreateMessageResult> {
    return Promise.reject(new ClientCapabilityMissing('sampling without a session'));
  }

  elicit(): Promise<ElicitResult> {
    return Promise.reject(new ClientCapabilityMissing('elicitation without a session'));
  }

  listRoots(): Promise<ListRootsResult> {
    return Promise.reject(new ClientCapabilityMissing('roots without a session'));
  }

  onRootsChanged(_listener: RootsChangedListener): () => void {
    return NOT_LISTENING;
  }

  /** No elicitation was ever sent: there is none to complete. */
  completeElicitation(elicitationId: string): void {
    throw new UnknownElicitation(elicitationId);
  }
}

function objectAt(value: Readonly<Record<string, unknown>>, key: string): Record<string, unknown> | undefined {
  const found = Object.hasOwn(value, key) ? value[key] : undefined;
  return typeof found === 'object' && found !== null && !Array.isArray(found) ? (found as Record<string, unknown>) : undefined;
}
