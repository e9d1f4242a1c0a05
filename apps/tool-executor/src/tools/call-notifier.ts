import type { toolExecutor } from '@mcp-platform/protocol-contracts';
import { isLevelAtLeast, JSONRPC_VERSION, type LoggingLevel } from '@mcp-platform/protocol-mcp';
import type { CallSink } from './call-output';

/** Which notifications the caller asked for. */
type CallNotify = Pick<toolExecutor.CallNotify, 'progressToken' | 'logLevel'>;

/**
 * The notifications of one running call, filtered by what its caller asked for: progress only with a
 * progress token, which every one echoes (S-264), logs only at or above the requested level (none
 * without one: S-34, S-235), progress strictly increasing (S-266), nothing after `close()` (S-267).
 * A task's run also hands every progress update that passes to `onProgress` (its status message), with
 * or without a token.
 */
export class CallNotifier {
  private lastProgress = Number.NEGATIVE_INFINITY;
  private closed = false;

  constructor(
    private readonly notify: CallNotify | undefined,
    private readonly output: CallSink,
    private readonly onProgress?: (progress: number, total?: number, message?: string) => void,
  ) {}

  progress(progress: number, total?: number, message?: string): boolean {
    const progressToken = this.notify?.progressToken;
    if (this.closed || !Number.isFinite(progress) || progress <= this.lastProgress) return false;
    if (progressToken === undefined && !this.onProgress) return false;
    this.lastProgress = progress;
    this.onProgress?.(progress, total, message);
    if (progressToken === undefined) return false;
    this.output.send({
      jsonrpc: JSONRPC_VERSION,
      method: 'notifications/progress',
      params: { progressToken, progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) },
    });
    return true;
  }

  /** The level the caller asked logs at, if it asked for any. */
  get logLevel(): LoggingLevel | undefined {
    return this.notify?.logLevel;
  }

  log(level: LoggingLevel, data: unknown, logger?: string): boolean {
    const threshold = this.notify?.logLevel;
    if (this.closed || threshold === undefined || !isLevelAtLeast(level, threshold)) return false;
    this.output.send({ jsonrpc: JSONRPC_VERSION, method: 'notifications/message', params: { level, data, ...(logger === undefined ? {} : { logger }) } });
    return true;
  }

  /** The call completed: its progress token and log stream are no longer valid. */
  close(): void {
    this.closed = true;
  }
}
