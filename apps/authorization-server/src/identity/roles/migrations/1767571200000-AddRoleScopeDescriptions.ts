import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a role's scopes let an application do, in an administrator's words: a JSON object from scope to
 * description, shown on the consent page. Existing roles get none (the page falls back to a generic
 * sentence for them).
 */
export class AddRoleScopeDescriptions1767571200000 implements MigrationInterface {
  name = 'AddRoleScopeDescriptions1767571200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "authorization_server"."roles" ADD COLUMN "scope_descriptions" jsonb NOT NULL DEFAULT '{}'::jsonb`);
    await queryRunner.query(
      `ALTER TABLE "authorization_server"."roles" ADD CONSTRAINT "ck_roles_scope_descriptions_object" CHECK (jsonb_typeof("scope_descriptions") = 'object')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "authorization_server"."roles" DROP CONSTRAINT "ck_roles_scope_descriptions_object"`);
    await queryRunner.query(`ALTER TABLE "authorization_server"."roles" DROP COLUMN "scope_descriptions"`);
  }
}
