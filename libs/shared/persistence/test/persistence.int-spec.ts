import 'reflect-metadata';
import { Column, DataSource, Entity, type MigrationInterface, PrimaryColumn, type QueryRunner } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDataSourceOptions,
  createThrowawayDatabase,
  type DatabaseOptions,
  DEFAULT_TEST_DATABASE_URL,
  runMigrations,
  type ThrowawayDatabase,
} from '../src';

@Entity({ name: 'notes' })
class NoteEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;
  @Column({ type: 'text' })
  bodyText!: string;
}

class CreateNotes1700000000000 implements MigrationInterface {
  name = 'CreateNotes1700000000000';
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "${queryRunner.connection.driver.schema}"."notes" ("id" text PRIMARY KEY, "body_text" text NOT NULL)`);
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "${queryRunner.connection.driver.schema}"."notes"`);
  }
}

const definition = (schema: string) => ({ schema, entities: [NoteEntity], migrations: [CreateNotes1700000000000] });

async function open(database: DatabaseOptions, schema: string): Promise<DataSource> {
  return new DataSource(createDataSourceOptions(database, definition(schema))).initialize();
}

async function roundTrip(dataSource: DataSource, id: string): Promise<string | undefined> {
  await dataSource.getRepository(NoteEntity).save({ id, bodyText: `note ${id}` });
  return (await dataSource.getRepository(NoteEntity).findOneBy({ id }))?.bodyText;
}

describe('runMigrations on PostgreSQL', () => {
  let database: ThrowawayDatabase;

  beforeAll(async () => {
    database = await createThrowawayDatabase(process.env['DATABASE_URL'] ?? DEFAULT_TEST_DATABASE_URL, 'persistence');
  });
  afterAll(async () => {
    await database.drop();
  });

  it('creates the schema, applies the migrations once and records them in the schema', async () => {
    const dataSource = await open({ kind: 'postgres', url: database.url }, 'app_one');
    try {
      await expect(runMigrations(dataSource, 'app_one')).resolves.toEqual({ applied: ['CreateNotes1700000000000'] });
      await expect(runMigrations(dataSource, 'app_one')).resolves.toEqual({ applied: [] });
      await expect(roundTrip(dataSource, 'a')).resolves.toBe('note a');
      const recorded = (await dataSource.query(`SELECT name FROM "app_one"."migrations"`)) as Array<{ name: string }>;
      expect(recorded.map((row) => row.name)).toEqual(['CreateNotes1700000000000']);
    } finally {
      await dataSource.destroy();
    }
  });

  it('lets several replicas start at once: one migrates, the others find nothing to do', async () => {
    const replicas = await Promise.all([1, 2, 3].map(() => open({ kind: 'postgres', url: database.url }, 'app_racing')));
    try {
      const results = await Promise.all(replicas.map((replica) => runMigrations(replica, 'app_racing')));
      expect(results.flatMap((result) => result.applied)).toEqual(['CreateNotes1700000000000']);
    } finally {
      await Promise.all(replicas.map((replica) => replica.destroy()));
    }
  });
});

describe('runMigrations on PGlite', () => {
  it('runs the same migrations for two apps on one shared in-memory database', async () => {
    const first = await open({ kind: 'pglite' }, 'app_one');
    const second = await open({ kind: 'pglite' }, 'app_two');
    try {
      await Promise.all([runMigrations(first, 'app_one'), runMigrations(second, 'app_two')]);
      await expect(roundTrip(first, 'x')).resolves.toBe('note x');
      await expect(roundTrip(second, 'y')).resolves.toBe('note y');
      // One database: each app sees the other's schema (and still writes only its own).
      const schemas = (await first.query(`SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'app_%' ORDER BY 1`)) as Array<{
        schema_name: string;
      }>;
      expect(schemas.map((row) => row.schema_name)).toEqual(['app_one', 'app_two']);
    } finally {
      await first.destroy();
      // The instance stays open for the other app until its DataSource is destroyed too.
      await expect(roundTrip(second, 'z')).resolves.toBe('note z');
      await second.destroy();
    }
  });

  it('refuses a second dataDir while the shared instance is open', async () => {
    const first = await open({ kind: 'pglite' }, 'app_one');
    try {
      expect(() => createDataSourceOptions({ kind: 'pglite', dataDir: 'some/where' }, definition('app_two'))).toThrow(/already open/);
    } finally {
      await first.destroy();
    }
  });

  it('tells onClosed once the last DataSource has closed the instance, not before', async () => {
    let closed = 0;
    const onClosed = (): void => {
      closed += 1;
    };
    const first = await open({ kind: 'pglite', onClosed }, 'app_one');
    const second = await open({ kind: 'pglite', onClosed }, 'app_two');
    await first.destroy();
    expect(closed).toBe(0);
    await second.destroy();
    expect(closed).toBe(1);
  });

  it('starts from a fresh in-memory database once every DataSource is closed', async () => {
    const dataSource = await open({ kind: 'pglite' }, 'app_one');
    try {
      await expect(runMigrations(dataSource, 'app_one')).resolves.toEqual({ applied: ['CreateNotes1700000000000'] });
    } finally {
      await dataSource.destroy();
    }
  });
});
