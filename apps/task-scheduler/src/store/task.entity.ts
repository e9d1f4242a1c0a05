import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Principal, taskScheduler } from '@mcp-platform/protocol-contracts';

/** Which protocol era created the task: legacy core tasks (2025-11-25) or the modern extension. */
export type TaskEra = 'legacy' | 'modern';

/**
 * One task: whose it is, the call it runs with the principal to run it as, its status and outcome,
 * and the bookkeeping of its runs (claims and finishes by tool executors).
 */
@Entity({ name: 'tasks' })
@Index('ix_tasks_owner_created', ['tenant', 'ownerSubject', 'ownerAnonymous', 'ownerClientId', 'sessionId', 'createdAt', 'id'])
@Index('ix_tasks_tenant_created', ['tenant', 'createdAt', 'id'])
@Index('ix_tasks_expires_at', ['expiresAt'])
export class TaskEntity {
  /** 128 random bits, base64url (S-290, S-306). */
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  tenant!: string;

  @Column({ type: 'text' })
  server!: string;

  @Column({ type: 'text' })
  ownerSubject!: string;

  @Column({ type: 'text', nullable: true })
  ownerClientId!: string | null;

  @Column({ type: 'boolean' })
  ownerAnonymous!: boolean;

  /** Anonymous legacy callers only: the session their tasks are bound to (S-289, S-290). */
  @Column({ type: 'text', nullable: true })
  sessionId!: string | null;

  /** The legacy session the task was created through, whoever the caller: where status pushes go (S-284). */
  @Column({ type: 'text', nullable: true })
  originSessionId!: string | null;

  /** The owner's whole principal: the runs act as it. */
  @Column({ type: 'jsonb' })
  principal!: Principal;

  @Column({ type: 'text' })
  era!: TaskEra;

  @Column({ type: 'jsonb' })
  call!: taskScheduler.TaskCall;

  /** The tool's `idempotentHint`: a run cut short by a dying worker may run again only then. */
  @Column({ type: 'boolean' })
  idempotent!: boolean;

  @Column({ type: 'text' })
  status!: taskScheduler.TaskStatus;

  @Column({ type: 'text', nullable: true })
  statusMessage!: string | null;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  lastUpdatedAt!: Date;

  @Column({ type: 'integer' })
  ttlMs!: number;

  /** `createdAt + ttlMs`: from then on the task is unknown, and the sweep deletes it. */
  @Column({ type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ type: 'integer' })
  pollIntervalMs!: number;

  @Column({ type: 'jsonb', nullable: true })
  outcome!: taskScheduler.TaskOutcome | null;

  /** Modern era, `input_required`: what the task asks its client, by key (each an object). */
  @Column({ type: 'jsonb', nullable: true })
  inputRequests!: Record<string, unknown> | null;

  /** Modern era: every answer received so far, by key (keys are never reused, S-301). */
  @Column({ type: 'jsonb', default: () => `'{}'::jsonb` })
  inputResponses!: Record<string, unknown>;

  /** A worker claimed the task and has not finished it yet. */
  @Column({ type: 'boolean', default: false })
  runOpen!: boolean;

  @Column({ type: 'integer', default: 0 })
  runsStarted!: number;

  /** The highest delivery count of the current job a claim reported. */
  @Column({ type: 'integer', default: 0 })
  attemptsSeen!: number;

  /** The token of the claim that opened the current run. */
  @Column({ type: 'text', nullable: true })
  runToken!: string | null;
}
