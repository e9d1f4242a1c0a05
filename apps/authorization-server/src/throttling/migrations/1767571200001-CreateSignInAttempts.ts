import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Failed sign-in attempts, shared by every replica: one row per throttled key (a username at one client
 * address, or a username from anywhere). Rows are small and short-lived (a quarter of an hour after the
 * last failure); nothing evicts a row early, so no flood of other names can unblock a blocked user.
 */
export class CreateSignInAttempts1767571200001 implements MigrationInterface {
  name = 'CreateSignInAttempts1767571200001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "authorization_server"."sign_in_attempts" (
        "key" text NOT NULL,
        "failures" integer NOT NULL,
        "last_failure_at" timestamptz NOT NULL,
        "blocked_until" timestamptz NOT NULL,
        CONSTRAINT "pk_sign_in_attempts" PRIMARY KEY ("key"),
        CONSTRAINT "ck_sign_in_attempts_failures" CHECK ("failures" >= 0)
      )`);
    await queryRunner.query(`CREATE INDEX "ix_sign_in_attempts_last_failure_at" ON "authorization_server"."sign_in_attempts" ("last_failure_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "authorization_server"."sign_in_attempts"`);
  }
}
