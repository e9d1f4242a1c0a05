import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Content larger than one NATS message. A resource gets a `version`, raised by every write, which a
 * reader in chunks names on each chunk so it never joins two versions. Uploads in progress stage
 * their chunks in `resource_uploads` / `resource_upload_chunks` until the commit joins them into the
 * resource (or an abort, or the idle sweep by `updated_at`, drops them).
 */
export class AddChunkedResourceContent1767571200000 implements MigrationInterface {
  name = 'AddChunkedResourceContent1767571200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "resource_store"."resources" ADD COLUMN "version" integer NOT NULL DEFAULT 1`);

    await queryRunner.query(`
      CREATE TABLE "resource_store"."resource_uploads" (
        "id" uuid NOT NULL,
        "tenant" text NOT NULL,
        "uri" text COLLATE "C" NOT NULL,
        "mime_type" text NOT NULL,
        "name" text,
        "title" text,
        "description" text,
        "servers" jsonb,
        "received_bytes" integer NOT NULL DEFAULT 0,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "pk_resource_uploads" PRIMARY KEY ("id"),
        CONSTRAINT "ck_resource_uploads_received_bytes" CHECK ("received_bytes" >= 0),
        CONSTRAINT "ck_resource_uploads_servers" CHECK ("servers" IS NULL OR jsonb_typeof("servers") = 'array')
      )`);
    await queryRunner.query(`CREATE INDEX "ix_resource_uploads_updated_at" ON "resource_store"."resource_uploads" ("updated_at")`);

    await queryRunner.query(`
      CREATE TABLE "resource_store"."resource_upload_chunks" (
        "upload_id" uuid NOT NULL,
        "byte_offset" integer NOT NULL,
        "data" bytea NOT NULL,
        CONSTRAINT "pk_resource_upload_chunks" PRIMARY KEY ("upload_id", "byte_offset"),
        CONSTRAINT "fk_resource_upload_chunks_upload" FOREIGN KEY ("upload_id") REFERENCES "resource_store"."resource_uploads" ("id") ON DELETE CASCADE
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "resource_store"."resource_upload_chunks"`);
    await queryRunner.query(`DROP TABLE "resource_store"."resource_uploads"`);
    await queryRunner.query(`ALTER TABLE "resource_store"."resources" DROP COLUMN "version"`);
  }
}
