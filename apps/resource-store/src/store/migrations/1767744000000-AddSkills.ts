import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Agent skills (SEP-2640). A skill row holds the `SKILL.md` frontmatter and the manifest of its files
 * (path, digest, size, media type); the files themselves are resource rows at `skill://<name>/<path>`
 * marked with the skill's name, so reads, chunks, quota and subscriptions work as for any resource.
 * An upload says what it stages: a resource's content or a skill's archive.
 */
export class AddSkills1767744000000 implements MigrationInterface {
  name = 'AddSkills1767744000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "resource_store"."skills" (
        "id" uuid NOT NULL,
        "tenant" text NOT NULL,
        "name" text COLLATE "C" NOT NULL,
        "frontmatter" jsonb NOT NULL,
        "files" jsonb NOT NULL,
        "size" integer NOT NULL,
        "servers" jsonb NOT NULL DEFAULT '[]'::jsonb,
        "version" integer NOT NULL DEFAULT 1,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_skills" PRIMARY KEY ("id"),
        CONSTRAINT "ck_skills_frontmatter" CHECK (jsonb_typeof("frontmatter") = 'object'),
        CONSTRAINT "ck_skills_files" CHECK (jsonb_typeof("files") = 'array'),
        CONSTRAINT "ck_skills_servers" CHECK (jsonb_typeof("servers") = 'array')
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_skills_tenant_name" ON "resource_store"."skills" ("tenant", "name")`);
    await queryRunner.query(`ALTER TABLE "resource_store"."resources" ADD COLUMN "skill" text COLLATE "C"`);
    await queryRunner.query(`CREATE INDEX "ix_resources_tenant_skill" ON "resource_store"."resources" ("tenant", "skill") WHERE "skill" IS NOT NULL`);
    await queryRunner.query(`ALTER TABLE "resource_store"."resource_uploads" ADD COLUMN "kind" text NOT NULL DEFAULT 'resource'`);
    await queryRunner.query(
      `ALTER TABLE "resource_store"."resource_uploads" ADD CONSTRAINT "ck_resource_uploads_kind" CHECK ("kind" IN ('resource', 'skill'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "resource_store"."resource_uploads" DROP COLUMN "kind"`);
    await queryRunner.query(`DELETE FROM "resource_store"."resources" WHERE "skill" IS NOT NULL`);
    await queryRunner.query(`ALTER TABLE "resource_store"."resources" DROP COLUMN "skill"`);
    await queryRunner.query(`DROP TABLE "resource_store"."skills"`);
  }
}
