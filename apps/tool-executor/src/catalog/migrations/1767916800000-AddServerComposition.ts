import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Composition (issue 15 §3): a virtual server exposes each tool under a name of its own (`exposed_name`,
 * the tool's name for every existing row) with an optional presentation (`presentation`: the pick as
 * written, null for a plain name), so the key becomes the server and the exposed name; and it may
 * expose every tool of an upstream source (`virtual_server_sources`, gone with the server or the source).
 */
export class AddServerComposition1767916800000 implements MigrationInterface {
  name = 'AddServerComposition1767916800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tool_executor"."virtual_server_tools" ADD COLUMN "exposed_name" text`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."virtual_server_tools" ADD COLUMN "presentation" jsonb`);
    await queryRunner.query(`
      UPDATE "tool_executor"."virtual_server_tools" AS "link" SET "exposed_name" = "tool"."name"
      FROM "tool_executor"."tools" AS "tool" WHERE "tool"."id" = "link"."tool_id"`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."virtual_server_tools" ALTER COLUMN "exposed_name" SET NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE "tool_executor"."virtual_server_tools" ADD CONSTRAINT "ck_virtual_server_tools_exposed_name" CHECK ("exposed_name" ~ '^[A-Za-z0-9_.-]{1,128}$')`,
    );
    await queryRunner.query(`ALTER TABLE "tool_executor"."virtual_server_tools" DROP CONSTRAINT "pk_virtual_server_tools"`);
    await queryRunner.query(
      `ALTER TABLE "tool_executor"."virtual_server_tools" ADD CONSTRAINT "pk_virtual_server_tools" PRIMARY KEY ("virtual_server_id", "exposed_name")`,
    );
    await queryRunner.query(`
      CREATE TABLE "tool_executor"."virtual_server_sources" (
        "virtual_server_id" uuid NOT NULL,
        "source_id" uuid NOT NULL,
        "hidden" jsonb NOT NULL DEFAULT '[]'::jsonb,
        CONSTRAINT "pk_virtual_server_sources" PRIMARY KEY ("virtual_server_id", "source_id"),
        CONSTRAINT "fk_virtual_server_sources_server" FOREIGN KEY ("virtual_server_id") REFERENCES "tool_executor"."virtual_servers" ("id") ON DELETE CASCADE,
        CONSTRAINT "fk_virtual_server_sources_source" FOREIGN KEY ("source_id") REFERENCES "tool_executor"."upstream_sources" ("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE INDEX "ix_virtual_server_sources_source" ON "tool_executor"."virtual_server_sources" ("source_id")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "tool_executor"."virtual_server_sources"`);
    // The old key allows one row per tool: renamed entries go, a tool's plain entry (or its first pick) stays.
    await queryRunner.query(`
      DELETE FROM "tool_executor"."virtual_server_tools" AS "link" USING "tool_executor"."virtual_server_tools" AS "other"
      WHERE "link"."virtual_server_id" = "other"."virtual_server_id" AND "link"."tool_id" = "other"."tool_id" AND "link"."exposed_name" > "other"."exposed_name"`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."virtual_server_tools" DROP CONSTRAINT "pk_virtual_server_tools"`);
    await queryRunner.query(
      `ALTER TABLE "tool_executor"."virtual_server_tools" ADD CONSTRAINT "pk_virtual_server_tools" PRIMARY KEY ("virtual_server_id", "tool_id")`,
    );
    await queryRunner.query(`ALTER TABLE "tool_executor"."virtual_server_tools" DROP CONSTRAINT "ck_virtual_server_tools_exposed_name"`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."virtual_server_tools" DROP COLUMN "presentation"`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."virtual_server_tools" DROP COLUMN "exposed_name"`);
  }
}
