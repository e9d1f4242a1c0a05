import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Resources, resource templates and prompts per tenant, in schema `resource_store`. */
export class CreateResourceStore1767484800000 implements MigrationInterface {
  name = 'CreateResourceStore1767484800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "resource_store"."resources" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant" text NOT NULL,
        "uri" text COLLATE "C" NOT NULL,
        "name" text COLLATE "C" NOT NULL,
        "title" text,
        "description" text,
        "mime_type" text,
        "size" integer NOT NULL,
        "annotations" jsonb,
        "icons" jsonb,
        "text" text,
        "blob" bytea,
        "servers" jsonb NOT NULL DEFAULT '[]'::jsonb,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_resources" PRIMARY KEY ("id"),
        -- spec S-203: text for textual data, base64 blob for bytes; exactly one of them.
        CONSTRAINT "ck_resources_content" CHECK (("text" IS NULL) <> ("blob" IS NULL)),
        CONSTRAINT "ck_resources_size" CHECK ("size" >= 0),
        CONSTRAINT "ck_resources_servers" CHECK (jsonb_typeof("servers") = 'array')
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_resources_tenant_uri" ON "resource_store"."resources" ("tenant", "uri")`);

    await queryRunner.query(`
      CREATE TABLE "resource_store"."resource_templates" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant" text NOT NULL,
        "name" text COLLATE "C" NOT NULL,
        "uri_template" text NOT NULL,
        "title" text,
        "description" text,
        "mime_type" text,
        "annotations" jsonb,
        "icons" jsonb,
        "text_recipe" text NOT NULL,
        "completions" jsonb NOT NULL DEFAULT '{}'::jsonb,
        "servers" jsonb NOT NULL DEFAULT '[]'::jsonb,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_resource_templates" PRIMARY KEY ("id"),
        CONSTRAINT "ck_resource_templates_servers" CHECK (jsonb_typeof("servers") = 'array')
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_resource_templates_tenant_name" ON "resource_store"."resource_templates" ("tenant", "name")`);

    await queryRunner.query(`
      CREATE TABLE "resource_store"."prompts" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant" text NOT NULL,
        "name" text COLLATE "C" NOT NULL,
        "title" text,
        "description" text NOT NULL,
        "icons" jsonb,
        "arguments" jsonb NOT NULL DEFAULT '[]'::jsonb,
        "messages" jsonb NOT NULL,
        "servers" jsonb NOT NULL DEFAULT '[]'::jsonb,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_prompts" PRIMARY KEY ("id"),
        CONSTRAINT "ck_prompts_servers" CHECK (jsonb_typeof("servers") = 'array')
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_prompts_tenant_name" ON "resource_store"."prompts" ("tenant", "name")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "resource_store"."prompts"`);
    await queryRunner.query(`DROP TABLE "resource_store"."resource_templates"`);
    await queryRunner.query(`DROP TABLE "resource_store"."resources"`);
  }
}
