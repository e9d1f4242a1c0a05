import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The scopes a tool requires (S-142..S-144): a JSON array of scope names, empty for tools every
 * caller of the virtual server may use. Existing tools get `[]`, so nothing changes for them.
 */
export class AddToolScopes1767312000000 implements MigrationInterface {
  name = 'AddToolScopes1767312000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tool_executor"."tools" ADD COLUMN "required_scopes" jsonb NOT NULL DEFAULT '[]'::jsonb`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."tools" ADD CONSTRAINT "ck_tools_required_scopes" CHECK (jsonb_typeof("required_scopes") = 'array')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tool_executor"."tools" DROP CONSTRAINT "ck_tools_required_scopes"`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."tools" DROP COLUMN "required_scopes"`);
  }
}
