import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Tenants, users, roles, the user-role join and signing keys, in schema `authorization_server`. */
export class CreateIdentity1767312000000 implements MigrationInterface {
  name = 'CreateIdentity1767312000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "authorization_server"."tenants" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "slug" text NOT NULL,
        "name" text NOT NULL,
        "disabled" boolean NOT NULL DEFAULT false,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_tenants" PRIMARY KEY ("id"),
        -- the slug is a path segment of MCP URLs
        CONSTRAINT "ck_tenants_slug" CHECK ("slug" ~ '^[a-z0-9][a-z0-9-]{0,62}$')
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_tenants_slug" ON "authorization_server"."tenants" ("slug")`);

    await queryRunner.query(`
      CREATE TABLE "authorization_server"."users" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "username" text NOT NULL,
        "password_hash" text NOT NULL,
        "tenant_id" uuid,
        "platform_admin" boolean NOT NULL DEFAULT false,
        "disabled" boolean NOT NULL DEFAULT false,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_users" PRIMARY KEY ("id"),
        CONSTRAINT "ck_users_username_lowercase" CHECK ("username" = lower("username")),
        CONSTRAINT "ck_users_tenant_or_platform_admin" CHECK ("tenant_id" IS NOT NULL OR "platform_admin"),
        CONSTRAINT "fk_users_tenant" FOREIGN KEY ("tenant_id") REFERENCES "authorization_server"."tenants" ("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_users_username" ON "authorization_server"."users" ("username")`);
    await queryRunner.query(`CREATE INDEX "ix_users_tenant" ON "authorization_server"."users" ("tenant_id")`);

    await queryRunner.query(`
      CREATE TABLE "authorization_server"."roles" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "name" text NOT NULL,
        "description" text,
        "scopes" jsonb NOT NULL DEFAULT '[]'::jsonb,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_roles" PRIMARY KEY ("id"),
        CONSTRAINT "ck_roles_name" CHECK ("name" ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
        CONSTRAINT "ck_roles_scopes_array" CHECK (jsonb_typeof("scopes") = 'array'),
        CONSTRAINT "fk_roles_tenant" FOREIGN KEY ("tenant_id") REFERENCES "authorization_server"."tenants" ("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_roles_tenant_name" ON "authorization_server"."roles" ("tenant_id", "name")`);

    await queryRunner.query(`
      CREATE TABLE "authorization_server"."user_roles" (
        "user_id" uuid NOT NULL,
        "role_id" uuid NOT NULL,
        CONSTRAINT "pk_user_roles" PRIMARY KEY ("user_id", "role_id"),
        CONSTRAINT "fk_user_roles_user" FOREIGN KEY ("user_id") REFERENCES "authorization_server"."users" ("id") ON DELETE CASCADE,
        CONSTRAINT "fk_user_roles_role" FOREIGN KEY ("role_id") REFERENCES "authorization_server"."roles" ("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE INDEX "ix_user_roles_role" ON "authorization_server"."user_roles" ("role_id")`);

    await queryRunner.query(`
      CREATE TABLE "authorization_server"."signing_keys" (
        "kid" text NOT NULL,
        "alg" text NOT NULL,
        "private_jwk" jsonb NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "activated_at" timestamptz NOT NULL DEFAULT now(),
        "retired_at" timestamptz,
        CONSTRAINT "pk_signing_keys" PRIMARY KEY ("kid")
      )`);
    await queryRunner.query(`CREATE INDEX "ix_signing_keys_activated_at" ON "authorization_server"."signing_keys" ("activated_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "authorization_server"."signing_keys"`);
    await queryRunner.query(`DROP TABLE "authorization_server"."user_roles"`);
    await queryRunner.query(`DROP TABLE "authorization_server"."roles"`);
    await queryRunner.query(`DROP TABLE "authorization_server"."users"`);
    await queryRunner.query(`DROP TABLE "authorization_server"."tenants"`);
  }
}
