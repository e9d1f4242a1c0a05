import { describe, expect, it } from 'vitest';
import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import type { PromptInputDefinition } from '../store/store.types';
import { promptAnswers } from './prompt-inputs';

const PROMPT: { name: string; inputs: PromptInputDefinition[] } = {
  name: 'brief',
  inputs: [
    { key: 'who', message: 'Who is it for?', requestedSchema: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } } } },
    { key: 'tone', message: 'Which tone?', requestedSchema: { type: 'object', properties: { tone: { type: 'string' } } } },
  ],
};
const ASKING = { asksByResult: true, clientCapabilities: { elicitation: {} } };

describe(promptAnswers, () => {
  it('asks every unanswered input as one form elicitation, keyed by the input', () => {
    expect(promptAnswers(PROMPT, { ...ASKING, inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } } })).toEqual({
      inputRequired: {
        inputRequests: { tone: { method: 'elicitation/create', params: { message: 'Which tone?', requestedSchema: PROMPT.inputs[1]?.requestedSchema } } },
      },
    });
  });

  it("gives the accepted answers as key.field texts, only the schema's fields, and nothing for a declined one", () => {
    const answers = promptAnswers(PROMPT, {
      ...ASKING,
      inputResponses: { who: { action: 'accept', content: { name: 'Ada', age: 36, injected: 'x' } }, tone: { action: 'decline' }, other: 1 },
    });
    expect(answers).toEqual({ values: { 'who.name': 'Ada', 'who.age': '36' } });
  });

  it('asks nothing of a request that cannot ask by result (a 2025-era session)', () => {
    expect(promptAnswers(PROMPT, {})).toEqual({ values: {} });
  });

  it('refuses a client without elicitation (-32021) and an answer that is no elicitation result (-32602)', () => {
    expect(() => promptAnswers(PROMPT, { asksByResult: true, clientCapabilities: { sampling: {} } })).toThrow(
      expect.objectContaining({ code: WireErrorCode.MissingClientCapability, data: { requiredCapabilities: { elicitation: {} } } }),
    );
    const malformed = (() => {
      try {
        return promptAnswers(PROMPT, { ...ASKING, inputResponses: { who: 12345 } });
      } catch (error) {
        return error;
      }
    })();
    expect(malformed).toBeInstanceOf(RpcError);
    expect(malformed).toMatchObject({ code: WireErrorCode.InvalidParams, message: expect.stringContaining('inputResponses.who') });
  });
});
