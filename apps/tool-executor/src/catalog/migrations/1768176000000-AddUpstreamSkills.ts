import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Upstream skills (the skills extension, SEP-2640): an upstream item may be a skill, named by the URI
 * of its `SKILL.md`, pinned and approved like the other kinds.
 */
export class AddUpstreamSkills1768176000000 implements MigrationInterface {
  name = 'AddUpstreamSkills1768176000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tool_executor"."upstream_items" DROP CONSTRAINT "ck_upstream_items_kind"`);
    await queryRunner.query(
      `ALTER TABLE "tool_executor"."upstream_items" ADD CONSTRAINT "ck_upstream_items_kind" CHECK ("kind" IN ('tool', 'prompt', 'resource', 'resource-template', 'skill'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "tool_executor"."upstream_items" WHERE "kind" = 'skill'`);
    await queryRunner.query(`DELETE FROM "tool_executor"."upstream_approvals" WHERE "kind" = 'skill'`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."upstream_items" DROP CONSTRAINT "ck_upstream_items_kind"`);
    await queryRunner.query(
      `ALTER TABLE "tool_executor"."upstream_items" ADD CONSTRAINT "ck_upstream_items_kind" CHECK ("kind" IN ('tool', 'prompt', 'resource', 'resource-template'))`,
    );
  }
}
