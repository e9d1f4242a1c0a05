import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Upstream skills (the skills extension, SEP-2640, through issue 15's sources): a skill row may be an
 * upstream source's, marked `upstream = { sourceId, source, name }` (`name`: the URI of its `SKILL.md`),
 * its `name` the skill path of that URI. Its files are upstream resource rows: a read goes to the executor.
 */
export class AddUpstreamSkills1767916800000 implements MigrationInterface {
  name = 'AddUpstreamSkills1767916800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "resource_store"."skills" ADD COLUMN "upstream" jsonb`);
    await queryRunner.query(
      `ALTER TABLE "resource_store"."skills" ADD CONSTRAINT "ck_skills_upstream" CHECK ("upstream" IS NULL OR jsonb_typeof("upstream") = 'object')`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_skills_tenant_upstream_source" ON "resource_store"."skills" ("tenant", ("upstream" ->> 'sourceId')) WHERE "upstream" IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "resource_store"."resources" WHERE "upstream" IS NOT NULL AND "uri" LIKE 'skill://%'`);
    await queryRunner.query(`DELETE FROM "resource_store"."skills" WHERE "upstream" IS NOT NULL`);
    await queryRunner.query(`ALTER TABLE "resource_store"."skills" DROP COLUMN "upstream"`);
  }
}
