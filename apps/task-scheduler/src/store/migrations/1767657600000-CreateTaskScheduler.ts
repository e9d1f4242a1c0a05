import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The tasks table, in schema `task_scheduler`. */
export class CreateTaskScheduler1767657600000 implements MigrationInterface {
  name = 'CreateTaskScheduler1767657600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "task_scheduler"."tasks" (
        "id" text COLLATE "C" NOT NULL,
        "tenant" text NOT NULL,
        "server" text NOT NULL,
        "owner_subject" text NOT NULL,
        "owner_client_id" text,
        "owner_anonymous" boolean NOT NULL,
        "session_id" text,
        "origin_session_id" text,
        "principal" jsonb NOT NULL,
        "era" text NOT NULL,
        "call" jsonb NOT NULL,
        "idempotent" boolean NOT NULL,
        "status" text NOT NULL,
        "status_message" text,
        "created_at" timestamptz NOT NULL,
        "last_updated_at" timestamptz NOT NULL,
        "ttl_ms" integer NOT NULL,
        "expires_at" timestamptz NOT NULL,
        "poll_interval_ms" integer NOT NULL,
        "outcome" jsonb,
        "input_requests" jsonb,
        "input_responses" jsonb NOT NULL DEFAULT '{}'::jsonb,
        "run_open" boolean NOT NULL DEFAULT false,
        "runs_started" integer NOT NULL DEFAULT 0,
        "attempts_seen" integer NOT NULL DEFAULT 0,
        CONSTRAINT "pk_tasks" PRIMARY KEY ("id"),
        CONSTRAINT "ck_tasks_era" CHECK ("era" IN ('legacy', 'modern')),
        -- spec S-278: the five statuses of the task status machine.
        CONSTRAINT "ck_tasks_status" CHECK ("status" IN ('working', 'input_required', 'completed', 'failed', 'cancelled')),
        CONSTRAINT "ck_tasks_ttl_ms" CHECK ("ttl_ms" > 0),
        CONSTRAINT "ck_tasks_poll_interval_ms" CHECK ("poll_interval_ms" > 0),
        -- Only anonymous callers' tasks are bound to their session.
        CONSTRAINT "ck_tasks_session_binding" CHECK ("session_id" IS NULL OR "owner_anonymous")
      )`);
    // tasks/list: one owner's tasks, newest first, continued after a (created_at, id) cursor.
    await queryRunner.query(
      `CREATE INDEX "ix_tasks_owner_created" ON "task_scheduler"."tasks" ("tenant", "owner_subject", "owner_anonymous", "owner_client_id", "session_id", "created_at" DESC, "id" DESC)`,
    );
    await queryRunner.query(`CREATE INDEX "ix_tasks_expires_at" ON "task_scheduler"."tasks" ("expires_at")`);
    // The per-tenant concurrency count at every claim reads only the open runs.
    await queryRunner.query(`CREATE INDEX "ix_tasks_tenant_open_runs" ON "task_scheduler"."tasks" ("tenant") WHERE "run_open"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "task_scheduler"."tasks"`);
  }
}
