import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The token of the claim that opened a task's run: a worker that lost the scheduler's answer to its
 * claim asks again with the same token and gets the same answer, instead of finding the run open and
 * failing a task whose tool never started.
 */
export class AddTaskRunToken1767744000000 implements MigrationInterface {
  name = 'AddTaskRunToken1767744000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "task_scheduler"."tasks" ADD COLUMN "run_token" text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "task_scheduler"."tasks" DROP COLUMN "run_token"`);
  }
}
