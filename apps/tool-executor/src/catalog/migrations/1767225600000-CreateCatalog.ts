import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Tenants, virtual servers, tools and the join between servers and tools, in schema `tool_executor`. */
export class CreateCatalog1767225600000 implements MigrationInterface {
  name = 'CreateCatalog1767225600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "tool_executor"."tenants" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "slug" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_tenants" PRIMARY KEY ("id"),
        CONSTRAINT "ck_tenants_slug" CHECK ("slug" ~ '^[a-z0-9][a-z0-9-]{0,63}$')
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_tenants_slug" ON "tool_executor"."tenants" ("slug")`);

    await queryRunner.query(`
      CREATE TABLE "tool_executor"."virtual_servers" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "name" text NOT NULL,
        "title" text,
        "description" text,
        "instructions" text,
        "public" boolean NOT NULL DEFAULT false,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_virtual_servers" PRIMARY KEY ("id"),
        CONSTRAINT "ck_virtual_servers_name" CHECK ("name" ~ '^[a-z0-9][a-z0-9-]{0,63}$'),
        CONSTRAINT "fk_virtual_servers_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tool_executor"."tenants" ("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_virtual_servers_tenant_name" ON "tool_executor"."virtual_servers" ("tenant_id", "name")`);

    await queryRunner.query(`
      CREATE TABLE "tool_executor"."tools" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "name" text NOT NULL,
        "title" text,
        "description" text,
        "input_schema" jsonb NOT NULL,
        "output_schema" jsonb,
        "annotations" jsonb,
        "kind" text NOT NULL,
        "config" jsonb NOT NULL,
        "timeout_ms" integer NOT NULL,
        "enabled" boolean NOT NULL DEFAULT true,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_tools" PRIMARY KEY ("id"),
        -- spec S-181: 1-128 characters of A-Z a-z 0-9 _ - .
        CONSTRAINT "ck_tools_name" CHECK ("name" ~ '^[A-Za-z0-9_.-]{1,128}$'),
        CONSTRAINT "ck_tools_kind" CHECK ("kind" IN ('builtin', 'http')),
        CONSTRAINT "ck_tools_timeout_ms" CHECK ("timeout_ms" > 0),
        CONSTRAINT "fk_tools_tenant" FOREIGN KEY ("tenant_id") REFERENCES "tool_executor"."tenants" ("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_tools_tenant_name" ON "tool_executor"."tools" ("tenant_id", "name")`);

    await queryRunner.query(`
      CREATE TABLE "tool_executor"."virtual_server_tools" (
        "virtual_server_id" uuid NOT NULL,
        "tool_id" uuid NOT NULL,
        CONSTRAINT "pk_virtual_server_tools" PRIMARY KEY ("virtual_server_id", "tool_id"),
        CONSTRAINT "fk_virtual_server_tools_server" FOREIGN KEY ("virtual_server_id") REFERENCES "tool_executor"."virtual_servers" ("id") ON DELETE CASCADE,
        CONSTRAINT "fk_virtual_server_tools_tool" FOREIGN KEY ("tool_id") REFERENCES "tool_executor"."tools" ("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE INDEX "ix_virtual_server_tools_tool" ON "tool_executor"."virtual_server_tools" ("tool_id")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "tool_executor"."virtual_server_tools"`);
    await queryRunner.query(`DROP TABLE "tool_executor"."tools"`);
    await queryRunner.query(`DROP TABLE "tool_executor"."virtual_servers"`);
    await queryRunner.query(`DROP TABLE "tool_executor"."tenants"`);
  }
}
