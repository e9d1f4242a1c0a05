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
    const schema = compileSchema({ type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } } }, 'inputSchema');
    expect(schema.validate({ pair: ['a', 1] })).toBeUndefined();
    expect(schema.validate({ pair: ['a', 'b'] })).toBe('/pair/1: must be number');
  });

  it('rejects another dialect, saying which is supported', () => {
    expect(() => compileSchema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' }, 'inputSchema')).toThrow(
      /unsupported JSON Schema dialect.*only 2020-12/,
    );
  });

  it('rejects a $ref to a network URI instead of fetching it', () => {
    expect(() => compileSchema({ type: 'object', properties: { a: { $ref: 'https://example.com/schema.json' } } }, 'inputSchema')).toThrow(
      SchemaRejectedError,
    );
  });

  it('rejects a schema nested beyond the depth bound', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 40; level += 1) deep = { anyOf: [deep] };
    expect(() => compileSchema({ type: 'object', properties: { a: deep } }, 'inputSchema')).toThrow(/deeper than/);
  });
});
