import { isLevelAtLeast, type LoggingLevel } from '@mcp-platform/protocol-mcp';
import type { EventPayload, sessionBroker, toolExecutor } from '@mcp-platform/protocol-contracts';

type Notification = EventPayload<typeof sessionBroker.callNotified>['notification'];
type CallNotify = toolExecutor.CallNotify;

/**
 * The notifications of one running call, filtered by what its caller asked for: progress only with a
 * progress token, logs only at or above the requested level (none without one: S-34, S-235),
 * progress strictly increasing (S-266), nothing after `close()` (S-267).
 */
export class CallNotifier {
  private lastProgress = Number.NEGATIVE_INFINITY;
  private closed = false;
  private sentAny = false;

  constructor(
    private readonly callId: string,
    private readonly notify: CallNotify | undefined,
    private readonly send: (payload: { callId: string; notification: Notification }, route: string) => void,
  ) {}

  progress(progress: number, total?: number, message?: string): boolean {
    if (this.closed || !this.notify?.progress || !Number.isFinite(progress)) return false;
    if (progress <= this.lastProgress) return false;
    this.lastProgress = progress;
    this.emit({
      method: 'notifications/progress',
      params: { progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) },
    });
    return true;
  }

  log(level: LoggingLevel, data: unknown, logger?: string): boolean {
    const threshold = this.notify?.logLevel;
    if (this.closed || threshold === undefined || !isLevelAtLeast(level, threshold)) return false;
    this.emit({ method: 'notifications/message', params: { level, data, ...(logger === undefined ? {} : { logger }) } });
    return true;
  }

  /** Whether anything was sent: the reply must then wait until it has left the process. */
  get sent(): boolean {
    return this.sentAny;
  }

  /** The call completed: its progress token and log stream are no longer valid. */
  close(): void {
    this.closed = true;
  }

  private emit(notification: Notification): void {
    if (!this.notify) return;
    this.sentAny = true;
    this.send({ callId: this.callId, notification }, this.notify.route);
  }
}
