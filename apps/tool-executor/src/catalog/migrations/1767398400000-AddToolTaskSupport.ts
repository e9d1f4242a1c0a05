import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Whether a tool runs as an MCP task (S-197): `forbidden`, `optional` or `required`. Existing tools get
 * `forbidden`, the protocol's default, so nothing changes for them.
 */
export class AddToolTaskSupport1767398400000 implements MigrationInterface {
  name = 'AddToolTaskSupport1767398400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tool_executor"."tools" ADD COLUMN "task_support" text NOT NULL DEFAULT 'forbidden'`);
    await queryRunner.query(
      `ALTER TABLE "tool_executor"."tools" ADD CONSTRAINT "ck_tools_task_support" CHECK ("task_support" IN ('forbidden', 'optional', 'required'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tool_executor"."tools" DROP CONSTRAINT "ck_tools_task_support"`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."tools" DROP COLUMN "task_support"`);
  }
}
