import type { MigrationInterface, QueryRunner } from 'typeorm';

/** OAuth clients registered by an administrator (with their tenant) or dynamically (tenant null). */
export class CreateOAuthClients1767398400001 implements MigrationInterface {
  name = 'CreateOAuthClients1767398400001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "authorization_server"."oauth_clients" (
        "client_id" text NOT NULL,
        "tenant_id" uuid,
        "metadata" jsonb NOT NULL,
        "secret_hash" text,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_oauth_clients" PRIMARY KEY ("client_id"),
        CONSTRAINT "ck_oauth_clients_metadata_object" CHECK (jsonb_typeof("metadata") = 'object'),
        CONSTRAINT "fk_oauth_clients_tenant" FOREIGN KEY ("tenant_id") REFERENCES "authorization_server"."tenants" ("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE INDEX "ix_oauth_clients_tenant" ON "authorization_server"."oauth_clients" ("tenant_id")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "authorization_server"."oauth_clients"`);
  }
}
