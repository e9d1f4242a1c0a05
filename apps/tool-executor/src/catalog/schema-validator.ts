import AjvDraft07 from 'ajv';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import type { RegExpEngine } from 'ajv/dist/types';
import addFormats from 'ajv-formats';
import { RE2JS } from 're2js';
import type { JsonObject } from './catalog.types';

/** The default dialect (S-19): JSON Schema 2020-12, also when `$schema` is absent. */
export const SUPPORTED_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * The other dialect we validate by its own rules (S-20): draft-07, which the 2025-era SDKs emit for
 * every tool (upstream MCP servers, issue 15). Any other `$schema` is refused, naming both.
 */
export const DRAFT_07_DIALECT = 'http://json-schema.org/draft-07/schema';

/** Bounds on what a published schema may cost to compile and run (S-22). */
export const SCHEMA_LIMITS = { maxBytes: 64 * 1024, maxDepth: 32, maxSubschemas: 2_000 } as const;

/** A schema we refuse to publish or validate with; the tool is left out of the catalog. */
export class SchemaRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaRejectedError';
  }
}

/** A compiled schema: `validate` answers `undefined` when the value conforms, else a readable message. */
export interface CompiledSchema {
  validate(value: unknown): string | undefined;
}

/**
 * `pattern` and `patternProperties` run on RE2JS, a linear-time engine, not on JavaScript's
 * backtracking one: a tenant writes the pattern and any caller the string, and `^(a+)+$` against 41
 * characters would hold the executor (every tenant's calls; the whole process in embedded mode) for
 * hours. The usual syntax is kept (classes, `\p{…}`, quantifiers, named groups); what has no
 * linear-time match (look-arounds, back-references) does not compile, and the tool is refused with
 * the reason.
 */
const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string): { test(text: string): boolean; toString(): string } => {
    const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
    // Ajv tells its compiled patterns apart by `toString()`, as it would native ones.
    return { test: (text: string) => compiled.test(text), toString: () => `/${pattern}/u` };
  },
  { code: 'RE2JS' },
);

/**
 * Compiles a tool's schema once (the catalog caches it per tool version). A fresh Ajv per schema keeps
 * `$id`s of different tools from colliding. No `loadSchema` is configured, so a `$ref` that is not
 * inside the schema fails compilation instead of being fetched (S-21): such a schema is rejected.
 * Patterns run in linear time (`linearRegExp`).
 */
export function compileSchema(schema: JsonObject, what: string): CompiledSchema {
  const dialect = dialectOf(schema, what);
  checkLimits(schema, what);
  const settings = { strict: false, allErrors: true, validateFormats: true, code: { regExp: linearRegExp } };
  const ajv = dialect === 'draft-07' ? new AjvDraft07(settings) : new Ajv2020(settings);
  addFormats(ajv);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    throw new SchemaRejectedError(`${what} does not compile: ${(error as Error).message}`);
  }
  return {
    validate(value: unknown): string | undefined {
      return validate(value) ? undefined : describeErrors(validate.errors ?? []);
    },
  };
}

function dialectOf(schema: JsonObject, what: string): '2020-12' | 'draft-07' {
  const dialect = schema['$schema'];
  if (dialect === undefined) return '2020-12';
  const bare = typeof dialect === 'string' ? dialect.replace(/#$/, '') : undefined;
  if (bare === SUPPORTED_DIALECT) return '2020-12';
  if (bare === DRAFT_07_DIALECT) return 'draft-07';
  throw new SchemaRejectedError(`${what} uses an unsupported JSON Schema dialect ${JSON.stringify(dialect)}; only 2020-12 and draft-07 are supported`);
}

function checkLimits(schema: JsonObject, what: string): void {
  if (JSON.stringify(schema).length > SCHEMA_LIMITS.maxBytes) {
    throw new SchemaRejectedError(`${what} is larger than ${SCHEMA_LIMITS.maxBytes} bytes`);
  }
  let subschemas = 0;
  const walk = (node: unknown, depth: number): void => {
    if (depth > SCHEMA_LIMITS.maxDepth) throw new SchemaRejectedError(`${what} nests deeper than ${SCHEMA_LIMITS.maxDepth} levels`);
    if (node === null || typeof node !== 'object') return;
    if (!Array.isArray(node) && (subschemas += 1) > SCHEMA_LIMITS.maxSubschemas) {
      throw new SchemaRejectedError(`${what} has more than ${SCHEMA_LIMITS.maxSubschemas} subschemas`);
    }
    for (const child of Array.isArray(node) ? node : Object.values(node)) walk(child, depth + 1);
  };
  walk(schema, 0);
}

/** One line per problem, with the JSON pointer of the offending value, for a model to self-correct (S-188). */
export function describeErrors(errors: ErrorObject[]): string {
  return errors
    .slice(0, 10)
    .map((error) => {
      const where = error.instancePath || '(root)';
      if (error.keyword === 'additionalProperties') {
        return `${where}: unexpected property "${String((error.params as { additionalProperty?: string }).additionalProperty)}"`;
      }
      if (error.keyword === 'required') {
        return `${where}: missing required property "${String((error.params as { missingProperty?: string }).missingProperty)}"`;
      }
      return `${where}: ${error.message ?? error.keyword}`;
    })
    .join('; ');
}
