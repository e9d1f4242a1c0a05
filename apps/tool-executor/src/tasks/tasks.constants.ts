import type { TaskWorkerOptions } from '../tool-executor.options';

/** Injection token of this replica's {@link TaskWorkerOptions}. */
export const TASK_WORKER_OPTIONS = 'TASK_WORKER_OPTIONS';

/** `TASK_WORKER_CONCURRENCY`, `TASK_MAX_ATTEMPTS`, `TASK_ACK_WAIT_MS` when not configured. */
export const DEFAULT_TASK_WORKER_OPTIONS: TaskWorkerOptions = { concurrency: 8, maxAttempts: 1_000, ackWaitMs: 30_000 };

/** How long a job waits before it is delivered again when the scheduler could not be asked for its claim. */
export const CLAIM_FAILED_RETRY_AFTER_MS = 2_000;

/** The pauses between the tries of a request to the scheduler (`claimTask`, `finishTask`): six tries over about 30 seconds. */
export const SCHEDULER_RETRY_PAUSES_MS: readonly number[] = [1_000, 2_000, 4_000, 8_000, 15_000];

/**
 * How long a job waits before it is delivered again when its run's ending never reached the scheduler:
 * the next claim sees the run still open and decides (run again, or fail a tool that is not idempotent).
 */
export const FINISH_FAILED_RETRY_AFTER_MS = 5_000;

/**
 * The id of one run of a task's call: `t-<taskId>-<runId>`, `runId` new for each run. Its client requests'
 * ids (`<callId>#<n>`) are then never reused in the session, however often the task runs (S-3).
 */
export function taskCallId(taskId: string, runId: string): string {
  return `t-${taskId}-${runId}`;
}
