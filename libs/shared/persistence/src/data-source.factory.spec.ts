import { describe, expect, it } from 'vitest';
import { createDataSourceOptions } from './data-source.factory';
import { SnakeNamingStrategy } from './snake-naming.strategy';

describe(createDataSourceOptions, () => {
  const app = { schema: 'tool_executor', entities: [], migrations: [] };

  it('builds explicit, boring Postgres options in the app schema', () => {
    const options = createDataSourceOptions({ kind: 'postgres', url: 'postgres://db/x' }, app);
    expect(options).toMatchObject({
      type: 'postgres',
      url: 'postgres://db/x',
      schema: 'tool_executor',
      synchronize: false,
      migrationsRun: false,
      migrationsTableName: 'migrations',
    });
    expect(options.namingStrategy).toBeInstanceOf(SnakeNamingStrategy);
  });

  it('uses the shared PGlite driver in embedded mode, the same for every app', () => {
    const first = createDataSourceOptions({ kind: 'pglite' }, app);
    const second = createDataSourceOptions({ kind: 'pglite' }, { ...app, schema: 'resource_store' });
    expect(first).toMatchObject({ type: 'postgres', schema: 'tool_executor' });
    expect((first as { driver?: unknown }).driver).toBeDefined();
    expect((first as { driver?: unknown }).driver).toBe((second as { driver?: unknown }).driver);
  });

  it('refuses a schema name that would need quoting', () => {
    expect(() => createDataSourceOptions({ kind: 'pglite' }, { ...app, schema: 'bad"; DROP' })).toThrow(/invalid schema name/);
  });
});
