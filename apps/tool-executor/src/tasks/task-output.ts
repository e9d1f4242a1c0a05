import { Logger } from '@nestjs/common';
import { sessionBroker, taskScheduler } from '@mcp-platform/protocol-contracts';
import { isPlainObject, RELATED_TASK_META_KEY } from '@mcp-platform/protocol-mcp';
import type { MessageBus } from '@mcp-platform/shared-messaging';
import type { CallOutcome, CallSink, OutgoingMessage } from '../tools/call-output';

/**
 * Where a legacy task's run sends its messages for the client, each tied to the task by `related-task`
 * in its `_meta` (S-285). The task outlives the `tools/call` that created it, so nothing goes to a call's
 * stream: progress and logs go to the GET stream of the session that created the task (S-98), requests
 * (sampling, elicitation, roots) to the task's `tasks/result` streams (S-286), sent again whenever one
 * opens ({@link awaitedBy}) until answered. Those streams are its owner's, in whichever session (the
 * broker checks before it holds one): a client that reconnected with a new session still answers its
 * task, and answers from those sessions count (S-325: they were asked). While any request waits, the
 * task is `input_required`, and `working` again once every one is answered (S-286); the scheduler hears
 * it in order, and before the run's ending ({@link end}).
 */
export class TaskOutput implements CallSink {
  readonly reachesClient = true;
  private readonly logger = new Logger(TaskOutput.name);
  private sentAny = false;
  /** The requests sent and not yet answered, by JSON-RPC id. */
  private readonly outstanding = new Map<string, OutgoingMessage>();
  /** The sessions besides the creating one that await the task on a `tasks/result` stream: their answers count. */
  private readonly awaitingSessions = new Set<string>();
  /** What the scheduler was last told: whether the run waits for its client. */
  private waitingReported = false;
  /** The reports in flight, chained so the scheduler hears them in order. */
  private reports: Promise<void> = Promise.resolve();

  constructor(
    private readonly taskId: string,
    readonly sessionId: string,
    private readonly bus: MessageBus,
  ) {}

  get sent(): boolean {
    return this.sentAny;
  }

  send(message: OutgoingMessage): void {
    const related = relatedTo(message, this.taskId);
    this.sentAny = true;
    const id = related['id'];
    if (typeof id !== 'string') {
      this.bus.emit(sessionBroker.sessionMessage, { sessionId: this.sessionId, message: related });
      return;
    }
    this.outstanding.set(id, related);
    this.post(related);
    this.reportWaiting();
  }

  settled(inputId: string): void {
    if (this.outstanding.delete(inputId)) this.reportWaiting();
  }

  /** A `tasks/result` stream of the owner opened in `sessionId`: its answers count, and the requests still waiting go out again. */
  awaitedBy(sessionId: string): void {
    if (sessionId !== this.sessionId) this.awaitingSessions.add(sessionId);
    for (const message of this.outstanding.values()) this.post(message);
  }

  alsoAnsweredBy(sessionId: string): boolean {
    return this.awaitingSessions.has(sessionId);
  }

  /** A task's run has no connection of its own to close. */
  disconnect(): void {
    return undefined;
  }

  /** The run ended: the scheduler has heard every status report before it hears the ending. */
  async end(_outcome: CallOutcome): Promise<void> {
    await this.reports;
  }

  private post(message: OutgoingMessage): void {
    this.bus.emit(sessionBroker.taskMessage, { taskId: this.taskId, message });
  }

  /** Tells the scheduler when the run starts or stops waiting for its client; a failed report is logged (the status is advisory). */
  private reportWaiting(): void {
    const waiting = this.outstanding.size > 0;
    if (waiting === this.waitingReported) return;
    this.waitingReported = waiting;
    this.reports = this.reports.then(async () => {
      try {
        await this.bus.request(taskScheduler.reportTaskInput, { taskId: this.taskId, waiting });
      } catch (error) {
        this.logger.warn(`task ${this.taskId}: could not report that it ${waiting ? 'waits' : 'no longer waits'} for its client: ${(error as Error).message}`);
      }
    });
  }
}

/** The message with `related-task` added to its params' `_meta` (S-285). */
function relatedTo(message: OutgoingMessage, taskId: string): OutgoingMessage {
  const params = isPlainObject(message['params']) ? message['params'] : {};
  const meta = isPlainObject(params['_meta']) ? params['_meta'] : {};
  return { ...message, params: { ...params, _meta: { ...meta, [RELATED_TASK_META_KEY]: { taskId } } } };
}
