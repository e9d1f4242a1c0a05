import { describe, expect, it } from 'vitest';
import { compileSchema, SchemaRejectedError } from './schema-validator';

describe(compileSchema, () => {
  it('validates with 2020-12 semantics, local $defs and formats', () => {
    const schema = compileSchema(
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
        properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' }, email: { type: 'string', format: 'email' } },
        additionalProperties: false,
      },
      'inputSchema',
    );
    expect(schema.validate({ name: 'a', address: { city: 'Oslo' } })).toBeUndefined();
    expect(schema.validate({ address: {} })).toBe('/address: missing required property "city"');
    expect(schema.validate({ other: 1 })).toBe('(root): unexpected property "other"');
    expect(schema.validate({ email: 'not an email' })).toBe('/email: must match format "email"');
  });

  it('treats a schema without $schema as 2020-12', () => {
    const schema = compileSchema(
      { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } } },
      'inputSchema',
    );
    expect(schema.validate({ pair: ['a', 1] })).toBeUndefined();
    expect(schema.validate({ pair: ['a', 'b'] })).toBe('/pair/1: must be number');
  });

  it('validates draft-07 schemas (what 2025-era SDK servers emit) by draft-07 rules', () => {
    const schema = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { tags: { type: 'array', items: [{ type: 'string' }] } } };
    const compiled = compileSchema(schema, 'inputSchema');
    // Draft-07 tuple `items`: the first element must be a string.
    expect(compiled.validate({ tags: ['a', 1] })).toBeUndefined();
    expect(compiled.validate({ tags: [1] })).toMatch(/tags\/0/);
  });

  it('rejects another dialect, saying which are supported', () => {
    expect(() => compileSchema({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' }, 'inputSchema')).toThrow(
      /unsupported JSON Schema dialect.*only 2020-12 and draft-07/,
    );
  });

  it('rejects a $ref to a network URI instead of fetching it', () => {
    expect(() => compileSchema({ type: 'object', properties: { a: { $ref: 'https://example.com/schema.json' } } }, 'inputSchema')).toThrow(SchemaRejectedError);
  });

  it("checks a caller's string against a tenant's pattern in linear time: a backtracking one would stall the executor for every tenant", () => {
    // `^(a+)+$` against 40 a's and a bang takes about 2^40 steps in a backtracking engine (hours); a
    // linear one answers at once. The same holds for patternProperties.
    const schema = compileSchema(
      { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } }, patternProperties: { '^(x+)+y$': { type: 'number' } } },
      'inputSchema',
    );
    const hostile = `${'a'.repeat(40)}!`;
    expect(schema.validate({ name: hostile })).toBe('/name: must match pattern "^(a+)+$"');
    expect(schema.validate({ name: 'aaaa' })).toBeUndefined();
    expect(schema.validate({ [`${'x'.repeat(40)}!`]: 'not checked', xxy: 'no' })).toBe('/xxy: must be number');
  }, 10_000);

  it('keeps the usual pattern syntax (classes, escapes, Unicode, named groups) and refuses what has no linear-time match (look-arounds, back-references)', () => {
    const schema = compileSchema({ type: 'string', pattern: '^[\\p{L}\\d_-]{2,8}(?<suffix>\\.\\w+)?$' }, 'inputSchema');
    expect(schema.validate('héllo_1.md')).toBeUndefined();
    expect(schema.validate('a')).toBe('(root): must match pattern "^[\\p{L}\\d_-]{2,8}(?<suffix>\\.\\w+)?$"');
    expect(() => compileSchema({ type: 'string', pattern: '^(?!admin).*$' }, 'inputSchema')).toThrow(SchemaRejectedError);
    expect(() => compileSchema({ type: 'string', pattern: '^(a)\\1$' }, 'inputSchema')).toThrow(/does not compile/);
  });

  it('rejects a schema nested beyond the depth bound', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 40; level += 1) deep = { anyOf: [deep] };
    expect(() => compileSchema({ type: 'object', properties: { a: deep } }, 'inputSchema')).toThrow(/deeper than/);
  });
});
