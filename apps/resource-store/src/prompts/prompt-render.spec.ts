import { describe, expect, it } from 'vitest';
import { RpcError } from '@mcp-platform/shared-messaging';
import { renderPrompt, type RenderablePrompt } from './prompt-render';

const withArguments: RenderablePrompt = {
  name: 'test_prompt_with_arguments',
  description: 'd',
  arguments: [
    { name: 'arg1', required: true },
    { name: 'arg2', required: true },
    { name: 'note' },
  ],
  messages: [{ role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='{{arg1}}', arg2='{{ arg2 }}'{{note}} {{unknown}}" } }],
};

describe('renderPrompt', () => {
  it('fills the arguments, an absent optional one with nothing, and leaves unknown placeholders', () => {
    const result = renderPrompt(withArguments, { arg1: 'testValue1', arg2: 'testValue2' });
    expect(result.messages).toEqual([{ role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='testValue1', arg2='testValue2' {{unknown}}" } }]);
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
});
