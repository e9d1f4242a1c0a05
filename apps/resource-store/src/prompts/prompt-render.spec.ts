import { describe, expect, it } from 'vitest';
import { RpcError } from '@mcp-platform/shared-messaging';
import { DEMO_FIXTURES } from '../seed/seed.fixtures';
import { type RenderablePrompt, renderPrompt } from './prompt-render';

const withArguments: RenderablePrompt = {
  name: 'test_prompt_with_arguments',
  description: 'd',
  arguments: [{ name: 'arg1', required: true }, { name: 'arg2', required: true }, { name: 'note' }],
  messages: [{ role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='{{arg1}}', arg2='{{ arg2 }}'{{note}} {{unknown}}" } }],
};

describe('renderPrompt', () => {
  it('fills the arguments, an absent optional one with nothing, and leaves unknown placeholders', () => {
    const result = renderPrompt(withArguments, { arg1: 'testValue1', arg2: 'testValue2' });
    expect(result.messages).toEqual([
      { role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='testValue1', arg2='testValue2' {{unknown}}" } },
    ]);
    expect(result.description).toBe('d');
  });

  it('refuses a missing required argument with INVALID_PARAMS naming it', () => {
    expect(() => renderPrompt(withArguments, { arg1: 'x' })).toThrow(RpcError);
    try {
      renderPrompt(withArguments, { arg1: 'x' });
    } catch (error) {
      expect(error).toMatchObject({ code: 'INVALID_PARAMS', data: { missing: ['arg2'] } });
    }
  });

  it('fills an embedded resource URI and passes images through', () => {
    const result = renderPrompt(
      {
        name: 'p',
        description: 'd',
        arguments: [{ name: 'resourceUri', required: true }],
        messages: [
          { role: 'user', content: { type: 'resource', resource: { uri: '{{resourceUri}}', mimeType: 'text/plain', text: 'Embedded' } } },
          { role: 'user', content: { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' } },
        ],
      },
      { resourceUri: 'test://example-resource' },
    );
    expect(result.messages[0]?.content).toEqual({ type: 'resource', resource: { uri: 'test://example-resource', mimeType: 'text/plain', text: 'Embedded' } });
    expect(result.messages[1]?.content).toEqual({ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' });
  });

  it('keeps an optional section only when its argument is given and not empty', () => {
    const prompt: RenderablePrompt = {
      name: 'p',
      description: 'd',
      arguments: [{ name: 'text', required: true }, { name: 'length' }],
      messages: [{ role: 'user', content: { type: 'text', text: 'Summarize{{#length}} ({{length}}, at most){{/length}}: {{text}}' } }],
    };
    const textOf = (given: Record<string, string>) => (renderPrompt(prompt, given).messages[0]?.content as { text: string }).text;
    expect(textOf({ text: 'x', length: 'one line' })).toBe('Summarize (one line, at most): x');
    expect(textOf({ text: 'x' })).toBe('Summarize: x');
    expect(textOf({ text: 'x', length: '' })).toBe('Summarize: x');
  });

  it('leaves a section of an unknown name as it is, like an unknown placeholder', () => {
    const prompt: RenderablePrompt = {
      name: 'p',
      description: 'd',
      arguments: [],
      messages: [{ role: 'user', content: { type: 'text', text: 'a{{#nope}}b{{/nope}}c' } }],
    };
    expect(renderPrompt(prompt).messages[0]?.content).toEqual({ type: 'text', text: 'a{{#nope}}b{{/nope}}c' });
  });

  it.each([
    ['unbalanced openers stay as written', 'x{{#a}}y{{#a}}z', { a: '1' }, 'x{{#a}}y{{#a}}z'],
    ['an inner opener of a section goes with its body', '{{#a}}p{{#a}}q{{/a}}r{{/a}}', { a: '1' }, 'p{{#a}}qr{{/a}}'],
    ['a stray closer stays as written', 'p{{/a}}q{{#a}}r{{/a}}', {}, 'p{{/a}}q'],
    ['a section inside another stays as written (sections do not nest)', '{{#a}}A{{#b}}B{{/b}}{{/a}}', { a: '1' }, 'A{{#b}}B{{/b}}'],
    ['spaces inside the tags', '{{# a }}A{{/ a }}!', { a: '1' }, 'A!'],
    ['a value holding a tag is not read as one', '{{#a}}[{{a}}]{{/a}}{{b}}', { a: '{{b}}', b: 'B' }, '[{{b}}]B'],
  ])('reads sections as before where tags are odd: %s', (_case, text, given, expected) => {
    const prompt: RenderablePrompt = {
      name: 'p',
      description: 'd',
      arguments: [{ name: 'a' }, { name: 'b' }],
      messages: [{ role: 'user', content: { type: 'text', text } }],
    };
    expect(renderPrompt(prompt, given).messages[0]?.content).toEqual({ type: 'text', text: expected });
  });

  it("renders a text of 300,000 unclosed section openers in one pass: a tenant admin's prompt must not stall the store for every tenant", () => {
    // A backtracking search for each opener's closer takes time quadratic in their number (about a
    // minute here, with the whole store's event loop stalled each time anyone gets the prompt); one pass
    // over the tags takes a fraction of a second, far inside this test's timeout.
    const text = `${'{{#a}}'.repeat(300_000)}${'{{/b}}'.repeat(100_000)}`;
    const prompt: RenderablePrompt = { name: 'p', description: 'd', arguments: [{ name: 'a' }], messages: [{ role: 'user', content: { type: 'text', text } }] };
    expect((renderPrompt(prompt, { a: 'x' }).messages[0]?.content as { text: string }).text).toBe(text);
  }, 10_000);
});

describe('the demo prompts', () => {
  it('renders summarize without its optional length as a plain sentence, with no empty parentheses', () => {
    const summarize = DEMO_FIXTURES.prompts.find((prompt) => prompt.name === 'summarize') as RenderablePrompt;
    expect(renderPrompt(summarize, { text: 'The text.' }).messages[0]?.content).toEqual({ type: 'text', text: 'Summarize the following text:\n\nThe text.' });
    expect(renderPrompt(summarize, { text: 'The text.', length: 'one sentence' }).messages[0]?.content).toEqual({
      type: 'text',
      text: 'Summarize the following text (one sentence):\n\nThe text.',
    });
  });

  it.each(DEMO_FIXTURES.prompts.map((prompt) => [prompt.name, prompt] as const))(
    'renders %s with only its required arguments without empty punctuation or doubled spaces',
    (_name, prompt) => {
      const required = Object.fromEntries((prompt.arguments ?? []).filter((argument) => argument.required).map((argument) => [argument.name, 'VALUE']));
      for (const message of renderPrompt(prompt as RenderablePrompt, required).messages) {
        if (message.content.type !== 'text') continue;
        expect(message.content.text).not.toMatch(/\(\s*\)|\[\s*\]|\{\{|[^\S\n]{2}|\s[:.,]/);
      }
    },
  );
});
