import type { MigrationInterface, QueryRunner } from 'typeorm';

/** oidc-provider's storage (`oidc_records`) and the shared secrets of the OAuth endpoints (`oauth_secrets`). */
export class CreateOAuthRecords1767398400000 implements MigrationInterface {
  name = 'CreateOAuthRecords1767398400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "authorization_server"."oidc_records" (
        "model" text NOT NULL,
        "id" text NOT NULL,
        "payload" jsonb NOT NULL,
        "grant_id" text,
        "uid" text,
        "user_code" text,
        "expires_at" timestamptz,
        "consumed_at" timestamptz,
        CONSTRAINT "pk_oidc_records" PRIMARY KEY ("model", "id")
      )`);
    await queryRunner.query(`CREATE INDEX "ix_oidc_records_grant_id" ON "authorization_server"."oidc_records" ("grant_id")`);
    await queryRunner.query(`CREATE INDEX "ix_oidc_records_uid" ON "authorization_server"."oidc_records" ("uid")`);
    await queryRunner.query(`CREATE INDEX "ix_oidc_records_expires_at" ON "authorization_server"."oidc_records" ("expires_at")`);

    await queryRunner.query(`
      CREATE TABLE "authorization_server"."oauth_secrets" (
        "name" text NOT NULL,
        "value" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_oauth_secrets" PRIMARY KEY ("name")
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "authorization_server"."oauth_secrets"`);
    await queryRunner.query(`DROP TABLE "authorization_server"."oidc_records"`);
  }
}
