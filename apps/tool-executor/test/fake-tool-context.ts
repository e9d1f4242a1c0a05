import { ManualClock } from '@mcp-platform/shared-clock';
import {
  ClientCapabilityMissing,
  type ClientRequests,
  type CreateMessageParams,
  type CreateMessageResult,
  type ElicitParams,
  type ElicitResult,
  type ListRootsResult,
  type RootsChangedListener,
  type ToolContext,
  UnknownElicitation,
} from '../src/tools/tool-context';

/** A request a tool sent the fake client. */
export type SentClientRequest =
  { method: 'sampling/createMessage'; params: CreateMessageParams } | { method: 'elicitation/create'; params: ElicitParams } | { method: 'roots/list' };

/** The fake client's canned answer per method: a result, or an error to reject with (e.g. `ClientRequestFailed`). */
export interface FakeClientAnswers {
  createMessage?: CreateMessageResult | Error;
  elicit?: ElicitResult | Error;
  listRoots?: ListRootsResult | Error;
}

/**
 * A client that records what tools ask it and answers from `answers`. A method whose capability
 * (`sampling`, `elicitation`, `roots`) is not declared rejects with `ClientCapabilityMissing` and
 * records nothing, like the platform's client; so `new FakeClient()` refuses every request.
 */
export class FakeClient implements ClientRequests {
  readonly sent: SentClientRequest[] = [];
  /** The elicitation ids tools completed, in order. */
  readonly completed: string[] = [];
  private readonly rootsListeners = new Set<RootsChangedListener>();

  constructor(
    readonly capabilities: Readonly<Record<string, unknown>> = {},
    private readonly answers: FakeClientAnswers = {},
  ) {}

  createMessage(params: CreateMessageParams): Promise<CreateMessageResult> {
    return this.answer('sampling', { method: 'sampling/createMessage', params }, this.answers.createMessage);
  }

  elicit(params: ElicitParams): Promise<ElicitResult> {
    return this.answer('elicitation', { method: 'elicitation/create', params }, this.answers.elicit);
  }

  listRoots(): Promise<ListRootsResult> {
    return this.answer('roots', { method: 'roots/list' }, this.answers.listRoots);
  }

  /** Listens like a legacy call: only when `roots.listChanged` is declared; {@link changeRoots} fires the listeners. */
  onRootsChanged(listener: RootsChangedListener): () => void {
    const roots = this.capabilities['roots'] as { listChanged?: unknown } | undefined;
    if (roots?.listChanged !== true) return () => undefined;
    const registration = (): void | Promise<void> => listener();
    this.rootsListeners.add(registration);
    return () => void this.rootsListeners.delete(registration);
  }

  /** The client's roots changed: calls every listener and waits for the ones that return a promise. */
  async changeRoots(): Promise<void> {
    await Promise.all([...this.rootsListeners].map(async (listener) => listener()));
  }

  /** Records the id; like the platform's client, refuses one no URL-mode elicitation of this client carried. */
  completeElicitation(elicitationId: string): void {
    const sent = this.sent.some(
      (request) => request.method === 'elicitation/create' && request.params.mode === 'url' && request.params.elicitationId === elicitationId,
    );
    if (!sent || this.completed.includes(elicitationId)) throw new UnknownElicitation(elicitationId);
    this.completed.push(elicitationId);
  }

  private async answer<T>(capability: string, request: SentClientRequest, answer: T | Error | undefined): Promise<T> {
    if (!Object.hasOwn(this.capabilities, capability)) throw new ClientCapabilityMissing(capability);
    this.sent.push(request);
    if (answer === undefined) throw new Error(`the fake client has no answer to ${request.method}`);
    if (answer instanceof Error) throw answer;
    return answer;
  }
}

/** A tool context without I/O: a fixed clock whose sleeps return at once, recorded progress, a {@link FakeClient}. */
export function fakeContext(overrides: Partial<ToolContext> = {}) {
  const progress: Array<[number, number | undefined]> = [];
  const slept: number[] = [];
  const clock = new (class extends ManualClock {
    override async sleep(ms: number, signal?: AbortSignal): Promise<void> {
      if (signal?.aborted) throw signal.reason;
      slept.push(ms);
    }
  })(Date.UTC(2026, 0, 15, 12, 30, 0));
  const context: ToolContext = {
    signal: new AbortController().signal,
    clock,
    progress: (value, total) => progress.push([value, total]),
    log: () => undefined,
    client: new FakeClient(),
    closeConnection: () => undefined,
    ...overrides,
  };
  return { context, progress, slept };
}
