import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Whether a tenant is disabled (the authorization server says so when an administrator disables it):
 * its virtual servers then refuse every caller on every broker. Existing tenants stay enabled.
 */
export class AddTenantDisabled1767571200000 implements MigrationInterface {
  name = 'AddTenantDisabled1767571200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tool_executor"."tenants" ADD COLUMN "disabled" boolean NOT NULL DEFAULT false`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tool_executor"."tenants" DROP COLUMN "disabled"`);
  }
}
