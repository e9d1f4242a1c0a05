import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Upstream prompts, resources and resource templates (issue 15 §3): a source names the virtual servers
 * that get them (`servers`, empty: all of the tenant's), and every approval says which kind of item it
 * approved. Existing sources serve their prompts and resources to every server once approved; existing
 * approvals were all of tools.
 */
export class AddUpstreamServedItems1768003200000 implements MigrationInterface {
  name = 'AddUpstreamServedItems1768003200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tool_executor"."upstream_sources" ADD COLUMN "servers" jsonb NOT NULL DEFAULT '[]'::jsonb`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."upstream_approvals" ADD COLUMN "kind" text NOT NULL DEFAULT 'tool'`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."upstream_items" DROP CONSTRAINT "ck_upstream_items_kind"`);
    await queryRunner.query(
      `ALTER TABLE "tool_executor"."upstream_items" ADD CONSTRAINT "ck_upstream_items_kind" CHECK ("kind" IN ('tool', 'prompt', 'resource', 'resource-template'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "tool_executor"."upstream_items" WHERE "kind" <> 'tool'`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."upstream_items" DROP CONSTRAINT "ck_upstream_items_kind"`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."upstream_items" ADD CONSTRAINT "ck_upstream_items_kind" CHECK ("kind" IN ('tool'))`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."upstream_approvals" DROP COLUMN "kind"`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."upstream_sources" DROP COLUMN "servers"`);
  }
}
