import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The last outbound failure of each HTTP tool (issue 13 item 5): what its caller saw only as an error
 * id, kept for the tenant's administrators. One row per tool, gone with the tool.
 */
export class AddToolLastErrors1767484800000 implements MigrationInterface {
  name = 'AddToolLastErrors1767484800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "tool_executor"."tool_last_errors" (
        "tool_id" uuid NOT NULL,
        "occurred_at" timestamptz NOT NULL,
        "error_id" text NOT NULL,
        "kind" text NOT NULL,
        "detail" text NOT NULL,
        CONSTRAINT "pk_tool_last_errors" PRIMARY KEY ("tool_id"),
        CONSTRAINT "ck_tool_last_errors_kind" CHECK ("kind" IN ('refused', 'unreachable', 'timeout', 'status', 'too_large', 'malformed')),
        CONSTRAINT "fk_tool_last_errors_tool" FOREIGN KEY ("tool_id") REFERENCES "tool_executor"."tools" ("id") ON DELETE CASCADE
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "tool_executor"."tool_last_errors"`);
  }
}
