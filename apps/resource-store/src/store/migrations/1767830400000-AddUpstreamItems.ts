import type { MigrationInterface, QueryRunner } from 'typeorm';

const TABLES = ['prompts', 'resources', 'resource_templates'] as const;

/**
 * Upstream items (issue 15 §3): the approved prompts, resources and resource templates of a tenant's
 * upstream MCP server, which the tool executor hands to the store (`putUpstreamItems`). They are rows
 * beside the store's own, marked `upstream = { sourceId, source, name }` (the upstream's own prompt or
 * template name; a resource's URI), and hold no content: a read, a render or a completion of one goes
 * to the executor. A prompt's description becomes optional, as MCP's is (an upstream may list none).
 */
export class AddUpstreamItems1767830400000 implements MigrationInterface {
  name = 'AddUpstreamItems1767830400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of TABLES) {
      await queryRunner.query(`ALTER TABLE "resource_store"."${table}" ADD COLUMN "upstream" jsonb`);
      await queryRunner.query(
        `ALTER TABLE "resource_store"."${table}" ADD CONSTRAINT "ck_${table}_upstream" CHECK ("upstream" IS NULL OR jsonb_typeof("upstream") = 'object')`,
      );
      // A source's rows are replaced together: found by (tenant, source id) without a scan of the tenant.
      await queryRunner.query(
        `CREATE INDEX "ix_${table}_tenant_upstream_source" ON "resource_store"."${table}" ("tenant", ("upstream" ->> 'sourceId')) WHERE "upstream" IS NOT NULL`,
      );
    }
    // The store's own resource holds exactly one of text and bytes; an upstream one holds neither.
    await queryRunner.query(`ALTER TABLE "resource_store"."resources" DROP CONSTRAINT "ck_resources_content"`);
    await queryRunner.query(
      `ALTER TABLE "resource_store"."resources" ADD CONSTRAINT "ck_resources_content" CHECK (CASE WHEN "upstream" IS NULL THEN ("text" IS NULL) <> ("blob" IS NULL) ELSE "text" IS NULL AND "blob" IS NULL END)`,
    );
    await queryRunner.query(`ALTER TABLE "resource_store"."prompts" ALTER COLUMN "description" DROP NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of TABLES) await queryRunner.query(`DELETE FROM "resource_store"."${table}" WHERE "upstream" IS NOT NULL`);
    await queryRunner.query(`ALTER TABLE "resource_store"."resources" DROP CONSTRAINT "ck_resources_content"`);
    await queryRunner.query(`ALTER TABLE "resource_store"."resources" ADD CONSTRAINT "ck_resources_content" CHECK (("text" IS NULL) <> ("blob" IS NULL))`);
    for (const table of TABLES) await queryRunner.query(`ALTER TABLE "resource_store"."${table}" DROP COLUMN "upstream"`);
    await queryRunner.query(`UPDATE "resource_store"."prompts" SET "description" = '' WHERE "description" IS NULL`);
    await queryRunner.query(`ALTER TABLE "resource_store"."prompts" ALTER COLUMN "description" SET NOT NULL`);
  }
}
