import { AUTHORIZATION_SERVER_SCHEMA } from './authorization-server.constants';

/** A table of this app's schema, quoted for raw SQL (the schema name is a constant, not input). */
export function table(name: 'tenants' | 'users' | 'roles' | 'user_roles' | 'signing_keys'): string {
  return `"${AUTHORIZATION_SERVER_SCHEMA}"."${name}"`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` can be compared with a uuid column (anything else makes PostgreSQL raise an error). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** PostgreSQL's `unique_violation`. */
export function isUniqueViolation(error: unknown): boolean {
  const candidate = error as { code?: unknown; driverError?: { code?: unknown } } | undefined;
  return candidate?.code === '23505' || candidate?.driverError?.code === '23505';
}

/** Anything that runs SQL: a DataSource or a transaction's EntityManager. */
export interface SqlRunner {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/**
 * Runs SQL and answers its rows. TypeORM's postgres driver answers `[rows, rowCount]` for UPDATE and
 * DELETE (also with RETURNING) and the rows alone otherwise; rows are objects, never arrays, so the
 * two shapes cannot be confused.
 */
export async function queryRows<T>(runner: SqlRunner, sql: string, parameters: unknown[] = []): Promise<T[]> {
  const result = await runner.query(sql, parameters);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}
