import { describe, expect, it } from 'vitest';
import { composeArguments, describeCollision, planExposures, presentationRefusal, presentedInputSchema } from './composition';

const schema = {
  type: 'object',
  properties: {
    query: { type: 'string' },
    index: { $ref: '#/$defs/index' },
    limit: { type: 'integer', minimum: 1 },
    loose: true,
  },
  required: ['query', 'index', 'limit'],
  additionalProperties: false,
  $defs: { index: { type: 'string', enum: ['docs', 'code'] } },
};

describe('presentedInputSchema', () => {
  it('drops fixed arguments, gives defaults their value, and takes both out of required', () => {
    const presented = presentedInputSchema(schema, { fixedArguments: { index: 'docs' }, defaultArguments: { limit: 5, loose: 'x' } });
    expect(presented['properties']).toEqual({ query: { type: 'string' }, limit: { type: 'integer', minimum: 1, default: 5 }, loose: { default: 'x' } });
    expect(presented['required']).toEqual(['query']);
    expect(presented['additionalProperties']).toBe(false);
    // The tool's own schema is untouched.
    expect(schema.properties).toHaveProperty('index');
    expect(schema.required).toEqual(['query', 'index', 'limit']);
  });

  it('removes required when nothing is left in it, and is the same object without arguments', () => {
    expect(presentedInputSchema(schema, { fixedArguments: { index: 'docs', query: 'q' }, defaultArguments: { limit: 1 } })).not.toHaveProperty('required');
    expect(presentedInputSchema(schema, { title: 'only a title' })).toBe(schema);
  });
});

describe('composeArguments', () => {
  const presentation = { fixedArguments: { index: 'docs' }, defaultArguments: { limit: 5 } };

  it('merges the defaults the client omitted and the fixed arguments', () => {
    expect(composeArguments(presentation, { query: 'q' })).toEqual({ ok: true, arguments: { query: 'q', index: 'docs', limit: 5 } });
    expect(composeArguments(presentation, { query: 'q', limit: 9 })).toEqual({ ok: true, arguments: { query: 'q', index: 'docs', limit: 9 } });
  });

  it('refuses a client that sends a fixed argument, even with the same value', () => {
    expect(composeArguments(presentation, { query: 'q', index: 'docs' })).toEqual({
      ok: false,
      argument: 'index',
      message: 'argument index is fixed by this server',
    });
  });

  it('leaves the arguments alone without a presentation', () => {
    const args = { query: 'q' };
    expect(composeArguments({}, args)).toEqual({ ok: true, arguments: args });
  });
});

describe('presentationRefusal', () => {
  const tool = { name: 'search', inputSchema: schema };

  it('accepts values that fit their property, $ref included', () => {
    expect(presentationRefusal(tool, { fixedArguments: { index: 'code' }, defaultArguments: { limit: 3, loose: { any: 1 } } })).toBeUndefined();
  });

  it('refuses unknown arguments, values their property refuses, and an argument both fixed and defaulted', () => {
    expect(presentationRefusal(tool, { fixedArguments: { region: 'eu' } })).toBe(
      'fixed argument region: search has no such argument (not a property of its input schema)',
    );
    expect(presentationRefusal(tool, { fixedArguments: { index: 'mail' } })).toMatch(/^fixed argument index of search: the value does not match its schema/);
    expect(presentationRefusal(tool, { defaultArguments: { limit: 1.5 } })).toMatch(/^default argument limit of search: the value does not match its schema/);
    expect(presentationRefusal(tool, { fixedArguments: { limit: 2 }, defaultArguments: { limit: 3 } })).toBe(
      'argument limit of search is both fixed and defaulted',
    );
  });
});

describe('planExposures', () => {
  const sourceTools = (id: string) => (id === 'gh-id' ? ['gh__issues', 'gh__pulls', 'gh__repos'] : []);

  it('exposes plain names, picks, then every tool of a source but the hidden and the picked ones', () => {
    const plan = planExposures(
      {
        toolNames: ['calc'],
        picks: [{ tool: 'gh__pulls', name: 'pulls', presentation: { name: 'pulls' } }],
        sources: [{ sourceId: 'gh-id', source: 'gh', hidden: ['gh__repos'] }],
      },
      sourceTools,
    );
    expect(plan.collisions).toEqual([]);
    expect(plan.exposures.map((exposure) => [exposure.name, exposure.tool])).toEqual([
      ['calc', 'calc'],
      ['pulls', 'gh__pulls'],
      ['gh__issues', 'gh__issues'],
    ]);
  });

  it('keeps the first of two entries exposing one name and reports both origins', () => {
    const plan = planExposures(
      {
        toolNames: ['calc'],
        picks: [
          { tool: 'other', name: 'calc', presentation: { name: 'calc' } },
          { tool: 'calc', name: 'gh__issues', presentation: { name: 'gh__issues' } },
        ],
        sources: [{ sourceId: 'gh-id', source: 'gh', hidden: [] }],
      },
      sourceTools,
    );
    expect(plan.exposures.map((exposure) => exposure.name)).toEqual(['calc', 'gh__issues', 'gh__pulls', 'gh__repos']);
    expect(plan.collisions).toEqual([
      { name: 'calc', kept: 'tools entry "calc"', refused: 'tools pick of "other" as "calc"' },
      { name: 'gh__issues', kept: 'tools pick of "calc" as "gh__issues"', refused: 'source "gh" (tool "gh__issues")' },
    ]);
    expect(describeCollision('main', plan.collisions[1] ?? { name: '', kept: '', refused: '' })).toBe(
      'Virtual server main would expose two tools named gh__issues: tools pick of "calc" as "gh__issues" and source "gh" (tool "gh__issues"); give one of them another name',
    );
  });
});
