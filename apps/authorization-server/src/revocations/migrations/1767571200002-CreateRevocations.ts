import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revocations of tenants (by id) and subjects (user or client ids): tokens issued until `revoked_at`
 * stop working. Kept for the longest access-token lifetime, so a resource server that starts later
 * (or the embedded mode after a restart) still refuses them.
 */
export class CreateRevocations1767571200002 implements MigrationInterface {
  name = 'CreateRevocations1767571200002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "authorization_server"."revocations" (
        "kind" text NOT NULL,
        "id" text NOT NULL,
        "revoked_at" timestamptz NOT NULL,
        "tenant" text,
        CONSTRAINT "pk_revocations" PRIMARY KEY ("kind", "id"),
        CONSTRAINT "ck_revocations_kind" CHECK ("kind" IN ('tenant', 'subject'))
      )`);
    await queryRunner.query(`CREATE INDEX "ix_revocations_revoked_at" ON "authorization_server"."revocations" ("revoked_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "authorization_server"."revocations"`);
  }
}
