import { Logger } from '@nestjs/common';
import { taskScheduler } from '@mcp-platform/protocol-contracts';
import type { MessageBus } from '@mcp-platform/shared-messaging';

/** At most one progress report per task this often: an hour-long task reporting every second costs 720 writes, not 3,600. */
export const PROGRESS_REPORT_INTERVAL_MS = 5_000;

/** Longest status message the scheduler takes. */
const MAX_STATUS_MESSAGE_LENGTH = 500;

/**
 * A task run's progress as its status message (`reportTaskProgress`), so a client polling `tasks/get` sees
 * how far the work got, in both eras (a modern task sends no progress notifications, S-304). The first
 * update goes at once, later ones at most every {@link PROGRESS_REPORT_INTERVAL_MS}, the latest winning; a
 * failed report is logged and the next one tries again. {@link stop} drops what is still pending.
 */
export class TaskProgress {
  private readonly logger = new Logger(TaskProgress.name);
  private lastSentAt = Number.NEGATIVE_INFINITY;
  private pending: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly taskId: string,
    private readonly bus: MessageBus,
    private readonly now: () => number = Date.now,
    private readonly intervalMs = PROGRESS_REPORT_INTERVAL_MS,
  ) {}

  /** The tool reported progress. */
  update(progress: number, total?: number, message?: string): void {
    if (this.stopped) return;
    this.pending = statusMessageOf(progress, total, message);
    const wait = this.lastSentAt + this.intervalMs - this.now();
    if (wait <= 0) this.send();
    else this.timer ??= setTimeout(() => this.send(), wait);
  }

  /** The run ended: nothing more is reported. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private send(): void {
    this.timer = undefined;
    const statusMessage = this.pending;
    if (this.stopped || statusMessage === undefined) return;
    this.pending = undefined;
    this.lastSentAt = this.now();
    this.bus.request(taskScheduler.reportTaskProgress, { taskId: this.taskId, statusMessage }).catch((error: unknown) => {
      this.logger.debug(`task ${this.taskId}: its progress was not recorded: ${(error as Error)?.message ?? String(error)}`);
    });
  }
}

/** `message` when the tool gave one, else `progress/total` (or `progress`); at most 500 characters. */
export function statusMessageOf(progress: number, total?: number, message?: string): string {
  const text =
    message !== undefined && message.trim().length > 0 ? message : total === undefined ? `Progress: ${progress}` : `Progress: ${progress} of ${total}`;
  return text.length > MAX_STATUS_MESSAGE_LENGTH ? `${text.slice(0, MAX_STATUS_MESSAGE_LENGTH - 1)}…` : text;
}
