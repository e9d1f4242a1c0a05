import type { Principal, taskScheduler } from '@mcp-platform/protocol-contracts';
import type { TaskEra } from './task.entity';

export type { TaskEra };

/**
 * Whose a task is (S-289): the caller the broker authenticated, and for an anonymous legacy caller the
 * session it came through (its only identity). `clientId` and `sessionId` are `null` when absent.
 */
export interface TaskOwner {
  tenant: string;
  subject: string;
  clientId: string | null;
  anonymous: boolean;
  sessionId: string | null;
}

/** A task as the store keeps it (the service's view of a row; entities stay in the repository). */
export interface StoredTask {
  id: string;
  tenant: string;
  server: string;
  owner: TaskOwner;
  originSessionId: string | null;
  principal: Principal;
  era: TaskEra;
  call: taskScheduler.TaskCall;
  idempotent: boolean;
  status: taskScheduler.TaskStatus;
  statusMessage: string | null;
  createdAt: Date;
  lastUpdatedAt: Date;
  ttlMs: number;
  expiresAt: Date;
  pollIntervalMs: number;
  outcome: taskScheduler.TaskOutcome | null;
  inputRequests: Record<string, Record<string, unknown>> | null;
  inputResponses: Record<string, unknown>;
  runOpen: boolean;
  runsStarted: number;
  attemptsSeen: number;
  /** The claim that opened the current run (the worker's token): the same claim asking again gets the same answer. */
  runToken: string | null;
}

/** What a locked update may change. */
export type TaskChanges = Partial<
  Pick<
    StoredTask,
    'status' | 'statusMessage' | 'lastUpdatedAt' | 'outcome' | 'inputRequests' | 'inputResponses' | 'runOpen' | 'runsStarted' | 'attemptsSeen' | 'runToken'
  >
>;

/** Where a page of an owner's tasks continues: after this task, newest first. */
export interface TaskListPosition {
  createdAt: Date;
  id: string;
}
