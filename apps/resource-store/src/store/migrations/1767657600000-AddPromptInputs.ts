import type { MigrationInterface, QueryRunner } from 'typeorm';

/** What a prompt asks the user before it renders (`inputs`, SEP-2322 on `prompts/get`); existing prompts ask nothing. */
export class AddPromptInputs1767657600000 implements MigrationInterface {
  name = 'AddPromptInputs1767657600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "resource_store"."prompts" ADD COLUMN "inputs" jsonb NOT NULL DEFAULT '[]'::jsonb`);
    await queryRunner.query(`ALTER TABLE "resource_store"."prompts" ADD CONSTRAINT "ck_prompts_inputs" CHECK (jsonb_typeof("inputs") = 'array')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "resource_store"."prompts" DROP COLUMN "inputs"`);
  }
}
