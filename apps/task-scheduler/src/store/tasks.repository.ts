import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, type SelectQueryBuilder } from 'typeorm';
import type { taskScheduler } from '@mcp-platform/protocol-contracts';
import { TASK_SCHEDULER_CONNECTION, TASK_SCHEDULER_SCHEMA } from '../task-scheduler.constants';
import type { StoredTask, TaskChanges, TaskListPosition, TaskOwner } from './stored-task';
import { TaskEntity } from './task.entity';

const TASKS = `"${TASK_SCHEDULER_SCHEMA}"."tasks"`;

/** The column of each field a locked update may change; jsonb ones are sent as JSON text. */
const CHANGE_COLUMNS: Record<keyof TaskChanges, { name: string; json: boolean }> = {
  status: { name: 'status', json: false },
  statusMessage: { name: 'status_message', json: false },
  lastUpdatedAt: { name: 'last_updated_at', json: false },
  outcome: { name: 'outcome', json: true },
  inputRequests: { name: 'input_requests', json: true },
  inputResponses: { name: 'input_responses', json: true },
  runOpen: { name: 'run_open', json: false },
  runsStarted: { name: 'runs_started', json: false },
  attemptsSeen: { name: 'attempts_seen', json: false },
  runToken: { name: 'run_token', json: false },
};

/**
 * The task locked for the rest of a transaction (`TasksRepository.lockTask`): its changes and the
 * reads a claim needs, all on the transaction's connection.
 */
export class LockedTask {
  constructor(
    private readonly manager: EntityManager,
    private current: StoredTask,
  ) {}

  get task(): StoredTask {
    return this.current;
  }

  /** Writes the changes; answers the task as it now is. */
  async update(changes: TaskChanges): Promise<StoredTask> {
    const assignments: string[] = [];
    const values: unknown[] = [this.current.id];
    for (const [key, value] of Object.entries(changes) as Array<[keyof TaskChanges, unknown]>) {
      if (value === undefined) continue;
      const column = CHANGE_COLUMNS[key];
      values.push(column.json && value !== null ? JSON.stringify(value) : value);
      assignments.push(`"${column.name}" = $${values.length}${column.json ? '::jsonb' : ''}`);
    }
    if (assignments.length > 0) await this.manager.query(`UPDATE ${TASKS} SET ${assignments.join(', ')} WHERE "id" = $1`, values);
    this.current = { ...this.current, ...changes };
    return this.current;
  }

  /**
   * Serializes the claims of one tenant until the transaction ends, so two claims cannot both count
   * the tenant under its limit and both run.
   */
  async lockTenantClaims(): Promise<void> {
    await this.manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`task-scheduler:claims:${this.current.tenant}`]);
  }

  /** Runs in progress of this task's tenant, this task's own left out (an unexpired `working` task with an open run). */
  async otherOpenRuns(now: Date): Promise<number> {
    const row = await this.manager
      .getRepository(TaskEntity)
      .createQueryBuilder('t')
      .select('COUNT(*)', 'count')
      .where('t.tenant = :tenant', { tenant: this.current.tenant })
      .andWhere('t.run_open')
      // A legacy run waiting for its client's answer (input_required) still holds its slot.
      .andWhere(`t.status IN ('working', 'input_required')`)
      .andWhere('t.expires_at > :now', { now })
      .andWhere('t.id <> :id', { id: this.current.id })
      .getRawOne<{ count: string | number }>();
    return Number(row?.count ?? 0);
  }
}

/** The tasks table: tasks by id, an owner's or a tenant's tasks by recency, and the expiry sweep. */
@Injectable()
export class TasksRepository {
  constructor(@InjectDataSource(TASK_SCHEDULER_CONNECTION) private readonly dataSource: DataSource) {}

  async insert(task: StoredTask): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ${TASKS} ("id", "tenant", "server", "owner_subject", "owner_client_id", "owner_anonymous", "session_id", "origin_session_id",
         "principal", "era", "call", "idempotent", "status", "status_message", "created_at", "last_updated_at", "ttl_ms", "expires_at",
         "poll_interval_ms", "outcome", "input_requests", "input_responses", "run_open", "runs_started", "attempts_seen")
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11::jsonb, $12, $13, $14, $15, $16, $17, $18, $19, $20::jsonb, $21::jsonb, $22::jsonb, $23, $24, $25)`,
      [
        task.id,
        task.tenant,
        task.server,
        task.owner.subject,
        task.owner.clientId,
        task.owner.anonymous,
        task.owner.sessionId,
        task.originSessionId,
        JSON.stringify(task.principal),
        task.era,
        JSON.stringify(task.call),
        task.idempotent,
        task.status,
        task.statusMessage,
        task.createdAt,
        task.lastUpdatedAt,
        task.ttlMs,
        task.expiresAt,
        task.pollIntervalMs,
        task.outcome === null ? null : JSON.stringify(task.outcome),
        task.inputRequests === null ? null : JSON.stringify(task.inputRequests),
        JSON.stringify(task.inputResponses),
        task.runOpen,
        task.runsStarted,
        task.attemptsSeen,
      ],
    );
  }

  async delete(id: string): Promise<void> {
    await this.dataSource.getRepository(TaskEntity).delete({ id });
  }

  async find(id: string): Promise<StoredTask | undefined> {
    const entity = await this.dataSource.getRepository(TaskEntity).findOneBy({ id });
    return entity ? toStoredTask(entity) : undefined;
  }

  /**
   * Runs `work` in a transaction holding the task's row lock (`undefined`: no such task), so claims,
   * finishes, cancellations and updates of one task happen one after the other. In embedded mode the
   * transaction holds the process's only PGlite connection: `work` uses `LockedTask` and nothing else.
   */
  async lockTask<T>(id: string, work: (locked: LockedTask | undefined) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      const entity = await manager.getRepository(TaskEntity).createQueryBuilder('t').setLock('pessimistic_write').where('t.id = :id', { id }).getOne();
      return work(entity ? new LockedTask(manager, toStoredTask(entity)) : undefined);
    });
  }

  /** The owner's unexpired tasks, newest first, after `after`; at most `limit`. */
  async listOwned(owner: TaskOwner, now: Date, after: TaskListPosition | undefined, limit: number): Promise<StoredTask[]> {
    const query = this.dataSource
      .getRepository(TaskEntity)
      .createQueryBuilder('t')
      .where('t.tenant = :tenant', { tenant: owner.tenant })
      .andWhere('t.owner_subject = :subject', { subject: owner.subject })
      .andWhere('t.owner_anonymous = :anonymous', { anonymous: owner.anonymous })
      .andWhere('t.expires_at > :now', { now });
    // Equality rather than IS NOT DISTINCT FROM, so the owner index serves both columns.
    if (owner.clientId === null) query.andWhere('t.owner_client_id IS NULL');
    else query.andWhere('t.owner_client_id = :clientId', { clientId: owner.clientId });
    if (owner.sessionId === null) query.andWhere('t.session_id IS NULL');
    else query.andWhere('t.session_id = :sessionId', { sessionId: owner.sessionId });
    return pageOf(query, after, limit);
  }

  /**
   * Every owner's unexpired tasks of `tenant` (only those in `status`, if given), newest first, after
   * `after`; at most `limit`. Served by `ix_tasks_tenant_created`, the status filtered along the way.
   */
  async listOfTenant(
    tenant: string,
    status: taskScheduler.TaskStatus | undefined,
    now: Date,
    after: TaskListPosition | undefined,
    limit: number,
  ): Promise<StoredTask[]> {
    const query = this.dataSource
      .getRepository(TaskEntity)
      .createQueryBuilder('t')
      .where('t.tenant = :tenant', { tenant })
      .andWhere('t.expires_at > :now', { now });
    if (status !== undefined) query.andWhere('t.status = :status', { status });
    return pageOf(query, after, limit);
  }

  /** The unexpired `working` tasks, oldest first (their jobs, when the queue lost them). */
  async listWorking(now: Date): Promise<StoredTask[]> {
    const entities = await this.dataSource
      .getRepository(TaskEntity)
      .createQueryBuilder('t')
      .where(`(t.status = 'working' OR (t.status = 'input_required' AND t.run_open))`)
      .andWhere('t.expires_at > :now', { now })
      .orderBy('t.created_at', 'ASC')
      .getMany();
    return entities.map(toStoredTask);
  }

  /**
   * Deletes every task of the tenant (the tenant was deleted); answers how many, and those that were not
   * finished yet as they were (their runs may still be under way).
   */
  async deleteTenant(tenant: string): Promise<{ deleted: number; unfinished: StoredTask[] }> {
    return this.dataSource.transaction(async (manager) => {
      const unfinished = await manager
        .getRepository(TaskEntity)
        .createQueryBuilder('t')
        .setLock('pessimistic_write')
        .where('t.tenant = :tenant', { tenant })
        .andWhere(`t.status IN ('working', 'input_required')`)
        .getMany();
      const result = await manager.createQueryBuilder().delete().from(TaskEntity).where('tenant = :tenant', { tenant }).returning('id').execute();
      return { deleted: ((result.raw ?? []) as unknown[]).length, unfinished: unfinished.map(toStoredTask) };
    });
  }

  /** Deletes every task expired at `now`; how many. */
  async deleteExpired(now: Date): Promise<number> {
    const result = await this.dataSource.getRepository(TaskEntity).createQueryBuilder().delete().where('expires_at <= :now', { now }).returning('id').execute();
    return ((result.raw ?? []) as unknown[]).length;
  }
}

/** A page of `query`'s tasks, newest first, after the `(created_at, id)` keyset position `after`. */
async function pageOf(query: SelectQueryBuilder<TaskEntity>, after: TaskListPosition | undefined, limit: number): Promise<StoredTask[]> {
  if (after) query.andWhere('(t.created_at, t.id) < (:afterCreatedAt, :afterId)', { afterCreatedAt: after.createdAt, afterId: after.id });
  const entities = await query.orderBy('t.created_at', 'DESC').addOrderBy('t.id', 'DESC').limit(limit).getMany();
  return entities.map(toStoredTask);
}

function toStoredTask(entity: TaskEntity): StoredTask {
  return {
    id: entity.id,
    tenant: entity.tenant,
    server: entity.server,
    owner: {
      tenant: entity.tenant,
      subject: entity.ownerSubject,
      clientId: entity.ownerClientId,
      anonymous: entity.ownerAnonymous,
      sessionId: entity.sessionId,
    },
    originSessionId: entity.originSessionId,
    principal: entity.principal,
    era: entity.era,
    call: entity.call,
    idempotent: entity.idempotent,
    status: entity.status,
    statusMessage: entity.statusMessage,
    createdAt: entity.createdAt,
    lastUpdatedAt: entity.lastUpdatedAt,
    ttlMs: entity.ttlMs,
    expiresAt: entity.expiresAt,
    pollIntervalMs: entity.pollIntervalMs,
    outcome: entity.outcome,
    // Written only from `StoredTask.inputRequests`: an object of objects.
    inputRequests: entity.inputRequests as StoredTask['inputRequests'],
    inputResponses: entity.inputResponses,
    runOpen: entity.runOpen,
    runsStarted: entity.runsStarted,
    attemptsSeen: entity.attemptsSeen,
    runToken: entity.runToken,
  };
}
