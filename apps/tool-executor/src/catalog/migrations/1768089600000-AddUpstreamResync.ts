import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Background re-reads of upstream catalogs (issue 15): when a source is due to be read again
 * (`next_sync_at`; any replica claims it with a conditional update, so one reads it), and how many
 * reads in a row failed (`sync_failures`, the retry's backoff). Existing sources are due at once.
 */
export class AddUpstreamResync1768089600000 implements MigrationInterface {
  name = 'AddUpstreamResync1768089600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tool_executor"."upstream_sources" ADD COLUMN "next_sync_at" timestamptz NULL`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."upstream_sources" ADD COLUMN "sync_failures" integer NOT NULL DEFAULT 0`);
    await queryRunner.query(`UPDATE "tool_executor"."upstream_sources" SET "next_sync_at" = now()`);
    await queryRunner.query(`CREATE INDEX "ix_upstream_sources_next_sync_at" ON "tool_executor"."upstream_sources" ("next_sync_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "tool_executor"."ix_upstream_sources_next_sync_at"`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."upstream_sources" DROP COLUMN "sync_failures"`);
    await queryRunner.query(`ALTER TABLE "tool_executor"."upstream_sources" DROP COLUMN "next_sync_at"`);
  }
}
