import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The admin API's list of a tenant's tasks, every owner's, newest first, continued after a
 * (created_at, id) cursor. Its status filter is applied while walking this index rather than by an index
 * of its own: administrators list rarely, while a status index would be written at every status change.
 */
export class AddTaskTenantIndex1767830400000 implements MigrationInterface {
  name = 'AddTaskTenantIndex1767830400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "ix_tasks_tenant_created" ON "task_scheduler"."tasks" ("tenant", "created_at" DESC, "id" DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "task_scheduler"."ix_tasks_tenant_created"`);
  }
}
