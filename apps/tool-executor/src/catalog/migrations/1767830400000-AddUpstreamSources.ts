import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Upstream MCP servers as tool sources (issue 15): the sources, the items they list with their pins,
 * and the audit of approvals. An approved upstream tool is a row of `tools` of kind `upstream` that
 * belongs to its source (gone with it); `held` says why a tool whose definition changed upstream is
 * neither listed nor callable until an administrator approves the change.
 */
export class AddUpstreamSources1767830400000 implements MigrationInterface {
  name = 'AddUpstreamSources1767830400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "tool_executor"."upstream_sources" (
        "id" uuid NOT NULL,
        "tenant_id" uuid NOT NULL,
        "name" text NOT NULL,
        "title" text,
        "connection" jsonb NOT NULL,
        "secrets" jsonb NOT NULL DEFAULT '{}'::jsonb,
        "prefix" text,
        "policy" text NOT NULL,
        "timeout_ms" integer,
        "enabled" boolean NOT NULL DEFAULT true,
        "health" jsonb NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_upstream_sources" PRIMARY KEY ("id"),
        CONSTRAINT "ck_upstream_sources_name" CHECK ("name" ~ '^[a-z0-9][a-z0-9-]{0,63}$'),
        CONSTRAINT "ck_upstream_sources_policy" CHECK ("policy" IN ('hold-all', 'approve-new', 'approve-all')),
        CONSTRAINT "fk_upstream_sources_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tool_executor"."tenants" ("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_upstream_sources_tenant_name" ON "tool_executor"."upstream_sources" ("tenant_id", "name")`);
    await queryRunner.query(`
      CREATE TABLE "tool_executor"."upstream_items" (
        "source_id" uuid NOT NULL,
        "kind" text NOT NULL,
        "name" text NOT NULL,
        "status" text NOT NULL,
        "reason" text,
        "observed" jsonb,
        "observed_digest" text,
        "approved" jsonb,
        "approved_digest" text,
        "approved_at" timestamptz,
        "approved_by" text,
        CONSTRAINT "pk_upstream_items" PRIMARY KEY ("source_id", "kind", "name"),
        CONSTRAINT "ck_upstream_items_kind" CHECK ("kind" IN ('tool')),
        CONSTRAINT "ck_upstream_items_status" CHECK ("status" IN ('approved', 'held-new', 'held-changed', 'removed', 'refused')),
        CONSTRAINT "fk_upstream_items_source" FOREIGN KEY ("source_id") REFERENCES "tool_executor"."upstream_sources" ("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`
      CREATE TABLE "tool_executor"."upstream_approvals" (
        "id" uuid NOT NULL,
        "source_id" uuid NOT NULL,
        "item" text NOT NULL,
        "actor" text NOT NULL,
        "digest" text NOT NULL,
        "previous_digest" text,
        "approved_at" timestamptz NOT NULL,
        CONSTRAINT "pk_upstream_approvals" PRIMARY KEY ("id"),
        CONSTRAINT "fk_upstream_approvals_source" FOREIGN KEY ("source_id") REFERENCES "tool_executor"."upstream_sources" ("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE INDEX "ix_upstream_approvals_source" ON "tool_executor"."upstream_approvals" ("source_id", "approved_at")`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."tools" DROP CONSTRAINT "ck_tools_kind"`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."tools" ADD CONSTRAINT "ck_tools_kind" CHECK ("kind" IN ('builtin', 'http', 'upstream'))`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."tools" ADD COLUMN "source_id" uuid`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."tools" ADD COLUMN "held" text`);
    await queryRunner.query(
      `ALTER TABLE "tool_executor"."tools" ADD CONSTRAINT "fk_tools_source" FOREIGN KEY ("source_id") REFERENCES "tool_executor"."upstream_sources" ("id") ON DELETE CASCADE`,
    );
    await queryRunner.query(
      `ALTER TABLE "tool_executor"."tools" ADD CONSTRAINT "ck_tools_upstream_source" CHECK (("kind" = 'upstream') = ("source_id" IS NOT NULL))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "tool_executor"."tools" WHERE "kind" = 'upstream'`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."tools" DROP CONSTRAINT "ck_tools_upstream_source"`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."tools" DROP CONSTRAINT "fk_tools_source"`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."tools" DROP COLUMN "held"`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."tools" DROP COLUMN "source_id"`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."tools" DROP CONSTRAINT "ck_tools_kind"`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."tools" ADD CONSTRAINT "ck_tools_kind" CHECK ("kind" IN ('builtin', 'http'))`);
    await queryRunner.query(`DROP TABLE "tool_executor"."upstream_approvals"`);
    await queryRunner.query(`DROP TABLE "tool_executor"."upstream_items"`);
    await queryRunner.query(`DROP TABLE "tool_executor"."upstream_sources"`);
  }
}
