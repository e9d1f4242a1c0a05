import { describe, expect, it } from 'vitest';
import { checkParamHeaders, type ParamHeaderDeclaration, readParamHeaderDeclarations } from './param-headers';

const SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    priority: { type: 'integer', 'x-mcp-header': 'Priority' },
    verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
    query: { type: 'string' },
    target: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
  },
  required: ['region', 'priority', 'query'],
};

function declarationsOf(schema: unknown): ParamHeaderDeclaration[] {
  const read = readParamHeaderDeclarations(schema);
  if (!read.ok) throw new Error(read.reason);
  return read.declarations;
}

function reasonOf(schema: unknown): string {
  const read = readParamHeaderDeclarations(schema);
  if (read.ok) throw new Error('the declarations were accepted');
  return read.reason;
}

describe('readParamHeaderDeclarations', () => {
  it('reads every declaration reached through properties, nested ones too', () => {
    expect(declarationsOf(SCHEMA)).toEqual([
      { name: 'Region', path: ['region'], type: 'string' },
      { name: 'Priority', path: ['priority'], type: 'integer' },
      { name: 'Verbose', path: ['verbose'], type: 'boolean' },
      { name: 'Zone', path: ['target', 'zone'], type: 'string' },
    ]);
  });

  it('finds none in a schema without x-mcp-header', () => {
    expect(declarationsOf({ type: 'object', properties: { a: { type: 'string' } } })).toEqual([]);
    expect(declarationsOf({ type: 'object', additionalProperties: false })).toEqual([]);
  });

  it('refuses a declaration on a non-primitive or number property', () => {
    expect(reasonOf({ type: 'object', properties: { tags: { type: 'array', items: { type: 'string' }, 'x-mcp-header': 'Tags' } } })).toMatch(
      /only string, integer and boolean/,
    );
    expect(reasonOf({ type: 'object', properties: { o: { type: 'object', 'x-mcp-header': 'O' } } })).toMatch(/"object"/);
    expect(reasonOf({ type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } })).toMatch(/"number"/);
    expect(reasonOf({ type: 'object', properties: { u: { 'x-mcp-header': 'U' } } })).toMatch(/of type null/);
  });

  it('refuses an empty, non-string or non-token name', () => {
    expect(reasonOf({ type: 'object', properties: { a: { type: 'string', 'x-mcp-header': '' } } })).toMatch(/non-empty string/);
    expect(reasonOf({ type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 7 } } })).toMatch(/non-empty string/);
    for (const name of ['Two Words', 'Bad:Colon', 'Line\r\nBreak', 'Ünicode', '(x)']) {
      expect(reasonOf({ type: 'object', properties: { a: { type: 'string', 'x-mcp-header': name } } })).toMatch(/not an HTTP token/);
    }
  });

  it('refuses names that repeat ignoring case', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'REGION' } } };
    expect(reasonOf(schema)).toMatch(/"REGION" repeats "Region"/);
  });

  it('refuses a declaration not reached through properties alone, or on the root', () => {
    expect(reasonOf({ type: 'string', 'x-mcp-header': 'Root' })).toMatch(/the schema root/);
    expect(reasonOf({ type: 'object', properties: { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } } })).toMatch(
      /not on a property reached/,
    );
    expect(reasonOf({ type: 'object', anyOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] })).toMatch(/not on a property reached/);
    expect(reasonOf({ type: 'object', $defs: { a: { type: 'string', 'x-mcp-header': 'A' } }, properties: { a: { $ref: '#/$defs/a' } } })).toMatch(
      /not on a property reached/,
    );
    expect(reasonOf({ type: 'object', additionalProperties: { type: 'string', 'x-mcp-header': 'A' } })).toMatch(/not on a property reached/);
  });
});

describe('checkParamHeaders', () => {
  const declarations = declarationsOf(SCHEMA);
  const args = { region: 'us-west1', priority: 0, verbose: false, query: 'q' };
  const headers = { region: 'us-west1', priority: '0', verbose: 'false' };

  it('accepts headers equal to the arguments as text', () => {
    expect(checkParamHeaders(declarations, args, headers)).toEqual({ ok: true });
    expect(checkParamHeaders(declarations, { ...args, verbose: true, priority: -42 }, { ...headers, verbose: 'true', priority: '-42' })).toEqual({ ok: true });
  });

  it('trims whitespace around the header value', () => {
    expect(checkParamHeaders(declarations, args, { ...headers, region: ' \tus-west1  ' })).toEqual({ ok: true });
  });

  it('compares a number as a number', () => {
    expect(checkParamHeaders(declarations, { ...args, priority: 42 }, { ...headers, priority: '42.0' })).toEqual({ ok: true });
    expect(checkParamHeaders(declarations, { ...args, priority: 42 }, { ...headers, priority: '43' })).toMatchObject({ ok: false });
    expect(checkParamHeaders(declarations, { ...args, priority: 42 }, { ...headers, priority: 'forty-two' })).toMatchObject({ ok: false });
  });

  it('decodes the Base64 form, and takes a value without both markers literally', () => {
    expect(checkParamHeaders(declarations, { ...args, region: 'Hello' }, { ...headers, region: '=?base64?SGVsbG8=?=' })).toEqual({ ok: true });
    expect(checkParamHeaders(declarations, { ...args, region: 'SGVsbG8=' }, { ...headers, region: 'SGVsbG8=' })).toEqual({ ok: true });
    expect(checkParamHeaders(declarations, { ...args, region: '=?base64?SGVsbG8=' }, { ...headers, region: '=?base64?SGVsbG8=' })).toEqual({ ok: true });
    expect(checkParamHeaders(declarations, { ...args, region: 'Hello' }, { ...headers, region: 'SGVsbG8=' })).toMatchObject({ ok: false });
  });

  it('refuses Base64 with bad padding, foreign characters or non-canonical bits, naming the header', () => {
    for (const region of ['=?base64?SGVsbG8?=', '=?base64?SGVs!!!bG8=?=', '=?base64?SGVsbG9=?=']) {
      const check = checkParamHeaders(declarations, { ...args, region: 'Hello' }, { ...headers, region });
      expect(check, region).toMatchObject({ ok: false, message: expect.stringMatching(/^the Mcp-Param-Region header is malformed/) });
    }
  });

  it('refuses a value that differs from the argument', () => {
    expect(checkParamHeaders(declarations, args, { ...headers, region: 'eu-west1' })).toEqual({
      ok: false,
      message: 'the Mcp-Param-Region header does not match the argument region',
    });
    expect(checkParamHeaders(declarations, args, { ...headers, verbose: 'False' })).toMatchObject({ ok: false });
  });

  it('refuses a missing header when the argument has a value', () => {
    const { region: _region, ...withoutRegion } = headers;
    expect(checkParamHeaders(declarations, { ...args, region: 'test-value' }, withoutRegion)).toEqual({
      ok: false,
      message: 'the Mcp-Param-Region header is required: the arguments carry region',
    });
  });

  it('refuses a header whose argument is absent or null', () => {
    const { verbose: _verbose, ...withoutVerbose } = args;
    expect(checkParamHeaders(declarations, withoutVerbose, headers)).toMatchObject({
      ok: false,
      message: expect.stringContaining('Mcp-Param-Verbose header is present'),
    });
    expect(checkParamHeaders(declarations, { ...args, verbose: null }, headers)).toMatchObject({ ok: false });
  });

  it('needs no header for an absent argument, and ignores headers nothing declares', () => {
    const { verbose: _verbose, ...withoutVerbose } = args;
    const { verbose: _header, ...otherHeaders } = headers;
    expect(checkParamHeaders(declarations, withoutVerbose, { ...otherHeaders, unknown: 'x' })).toEqual({ ok: true });
  });

  it('checks a nested argument by its path', () => {
    expect(checkParamHeaders(declarations, { ...args, target: { zone: 'a' } }, { ...headers, zone: 'a' })).toEqual({ ok: true });
    expect(checkParamHeaders(declarations, { ...args, target: { zone: 'a' } }, headers)).toMatchObject({
      ok: false,
      message: expect.stringContaining('Mcp-Param-Zone'),
    });
  });
});
