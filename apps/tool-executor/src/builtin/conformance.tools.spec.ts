import { describe, expect, it } from 'vitest';
import { readParamHeaderDeclarations } from '@mcp-platform/protocol-mcp';
import { FakeClient, fakeContext } from '../../test/fake-tool-context';
import { ClientRequestFailed, type ElicitResult } from '../tools/tool-context';
import { BuiltinToolRegistry } from './builtin-tool.registry';
import { CONFORMANCE_TOOLS } from './conformance.tools';

const tool = (name: string) => {
  const found = CONFORMANCE_TOOLS.find((candidate) => candidate.definition.name === name);
  if (!found) throw new Error(name);
  return found;
};

const eliciting = (elicit: ElicitResult | Error) => new FakeClient({ elicitation: {} }, { elicit });

describe('conformance tools', () => {
  describe('test_custom_headers', () => {
    it('is the only conformance tool with x-mcp-header, so the suite finds it, with valid declarations (S-117)', () => {
      const declaring = new BuiltinToolRegistry()
        .set('conformance')
        .filter((candidate) => JSON.stringify(candidate.definition.inputSchema).includes('x-mcp-header'))
        .map((candidate) => candidate.definition.name);
      expect(declaring).toEqual(['test_custom_headers']);
      expect(readParamHeaderDeclarations(tool('test_custom_headers').definition.inputSchema)).toEqual({
        ok: true,
        declarations: [
          { name: 'Region', path: ['region'], type: 'string' },
          { name: 'Priority', path: ['priority'], type: 'integer' },
          { name: 'Verbose', path: ['verbose'], type: 'boolean' },
        ],
      });
      expect(tool('test_custom_headers').definition.inputSchema).toMatchObject({ required: ['region', 'priority', 'query'] });
    });

    it('echoes its arguments', async () => {
      const args = { region: 'Hello', priority: 0, query: 'test-default' };
      await expect(tool('test_custom_headers').run(args, fakeContext().context)).resolves.toEqual({
        content: [{ type: 'text', text: 'Received: {"region":"Hello","priority":0,"query":"test-default"}' }],
      });
    });
  });

  describe('test_sampling', () => {
    // The answer of the suite's client in tools-call-sampling.
    const answer = {
      role: 'assistant' as const,
      content: { type: 'text' as const, text: 'This is a test response from the client' },
      model: 'test-model',
      stopReason: 'endTurn',
    };

    it('requires a string prompt', () => {
      expect(tool('test_sampling').definition.inputSchema).toMatchObject({ properties: { prompt: { type: 'string' } }, required: ['prompt'] });
    });

    it('sends the prompt as one user message with maxTokens 100 and reports the answer', async () => {
      const client = new FakeClient({ sampling: {} }, { createMessage: answer });
      const result = await tool('test_sampling').run({ prompt: 'Test prompt for sampling' }, fakeContext({ client }).context);
      expect(client.sent).toEqual([
        {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: { type: 'text', text: 'Test prompt for sampling' } }], maxTokens: 100 },
        },
      ]);
      expect(result).toEqual({ content: [{ type: 'text', text: 'LLM response: This is a test response from the client' }] });
    });

    it('answers "No response" when the model answered without text', async () => {
      const client = new FakeClient(
        { sampling: {} },
        { createMessage: { role: 'assistant', content: { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }, model: 'm' } },
      );
      const result = await tool('test_sampling').run({ prompt: 'p' }, fakeContext({ client }).context);
      expect(result).toEqual({ content: [{ type: 'text', text: 'LLM response: No response' }] });
    });

    it('answers with an error result when the client did not declare sampling', async () => {
      const result = await tool('test_sampling').run({ prompt: 'p' }, fakeContext().context);
      expect(result).toEqual({ content: [{ type: 'text', text: 'Sampling not supported or error: the client does not support sampling' }], isError: true });
    });

    it('answers with an error result when the client answers with an error', async () => {
      const client = new FakeClient({ sampling: {} }, { createMessage: new ClientRequestFailed(-1, 'User rejected sampling request') });
      const result = await tool('test_sampling').run({ prompt: 'p' }, fakeContext({ client }).context);
      expect(result).toEqual({
        content: [{ type: 'text', text: 'Sampling not supported or error: MCP error -1: User rejected sampling request' }],
        isError: true,
      });
    });
  });

  describe('test_elicitation', () => {
    it('requires a string message', () => {
      expect(tool('test_elicitation').definition.inputSchema).toMatchObject({ properties: { message: { type: 'string' } }, required: ['message'] });
    });

    it('asks for a username and an email, both required, and reports the answer', async () => {
      const client = eliciting({ action: 'accept', content: { username: 'testuser', email: 'test@example.com' } });
      const result = await tool('test_elicitation').run({ message: 'Please provide your information' }, fakeContext({ client }).context);
      expect(client.sent).toEqual([
        {
          method: 'elicitation/create',
          params: {
            message: 'Please provide your information',
            requestedSchema: {
              type: 'object',
              properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } },
              required: ['username', 'email'],
            },
          },
        },
      ]);
      expect(result).toEqual({ content: [{ type: 'text', text: 'User response: action=accept, content={"username":"testuser","email":"test@example.com"}' }] });
    });

    it('reports a declined request with empty content', async () => {
      const result = await tool('test_elicitation').run({ message: 'm' }, fakeContext({ client: eliciting({ action: 'decline' }) }).context);
      expect(result).toEqual({ content: [{ type: 'text', text: 'User response: action=decline, content={}' }] });
    });

    it('answers with an error result when the client did not declare elicitation', async () => {
      const result = await tool('test_elicitation').run({ message: 'm' }, fakeContext().context);
      expect(result).toEqual({
        content: [{ type: 'text', text: 'Elicitation not supported or error: the client does not support elicitation' }],
        isError: true,
      });
    });

    it('answers with an error result when the client answers with an error', async () => {
      const client = eliciting(new ClientRequestFailed(-32602, 'Invalid params'));
      const result = await tool('test_elicitation').run({ message: 'm' }, fakeContext({ client }).context);
      expect(result).toEqual({ content: [{ type: 'text', text: 'Elicitation not supported or error: MCP error -32602: Invalid params' }], isError: true });
    });
  });

  describe('test_elicitation_sep1034_defaults', () => {
    it('asks for one field of each primitive type, each with its default', async () => {
      const client = eliciting({ action: 'accept', content: { name: 'Jane Smith', age: 25, score: 88, status: 'inactive', verified: false } });
      const result = await tool('test_elicitation_sep1034_defaults').run({}, fakeContext({ client }).context);
      expect(client.sent).toEqual([
        {
          method: 'elicitation/create',
          params: {
            message: 'Please review and update the form fields with defaults',
            requestedSchema: {
              type: 'object',
              properties: {
                name: { type: 'string', description: 'User name', default: 'John Doe' },
                age: { type: 'integer', description: 'User age', default: 30 },
                score: { type: 'number', description: 'User score', default: 95.5 },
                status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
                verified: { type: 'boolean', description: 'Verification status', default: true },
              },
              required: [],
            },
          },
        },
      ]);
      expect(result).toEqual({
        content: [
          {
            type: 'text',
            text: 'Elicitation completed: action=accept, content={"name":"Jane Smith","age":25,"score":88,"status":"inactive","verified":false}',
          },
        ],
      });
    });

    it('answers with an error result when the client did not declare elicitation', async () => {
      const result = await tool('test_elicitation_sep1034_defaults').run({}, fakeContext().context);
      expect(result).toEqual({
        content: [{ type: 'text', text: 'Elicitation not supported or error: the client does not support elicitation' }],
        isError: true,
      });
    });
  });

  describe('test_elicitation_sep1330_enums', () => {
    it('asks with the five enum shapes', async () => {
      const client = eliciting({ action: 'accept', content: { untitledSingle: 'option1', titledMulti: ['value1', 'value2'] } });
      const result = await tool('test_elicitation_sep1330_enums').run({}, fakeContext({ client }).context);
      expect(client.sent).toEqual([
        {
          method: 'elicitation/create',
          params: {
            message: 'Please select options from the enum fields',
            requestedSchema: {
              type: 'object',
              properties: {
                untitledSingle: { type: 'string', description: 'Select one option', enum: ['option1', 'option2', 'option3'] },
                titledSingle: {
                  type: 'string',
                  description: 'Select one option with titles',
                  oneOf: [
                    { const: 'value1', title: 'First Option' },
                    { const: 'value2', title: 'Second Option' },
                    { const: 'value3', title: 'Third Option' },
                  ],
                },
                legacyEnum: {
                  type: 'string',
                  description: 'Select one option (legacy)',
                  enum: ['opt1', 'opt2', 'opt3'],
                  enumNames: ['Option One', 'Option Two', 'Option Three'],
                },
                untitledMulti: {
                  type: 'array',
                  description: 'Select multiple options',
                  minItems: 1,
                  maxItems: 3,
                  items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
                },
                titledMulti: {
                  type: 'array',
                  description: 'Select multiple options with titles',
                  minItems: 1,
                  maxItems: 3,
                  items: {
                    anyOf: [
                      { const: 'value1', title: 'First Choice' },
                      { const: 'value2', title: 'Second Choice' },
                      { const: 'value3', title: 'Third Choice' },
                    ],
                  },
                },
              },
              required: [],
            },
          },
        },
      ]);
      expect(result).toEqual({
        content: [{ type: 'text', text: 'Elicitation completed: action=accept, content={"untitledSingle":"option1","titledMulti":["value1","value2"]}' }],
      });
    });

    it('answers with an error result when the client answers with an error', async () => {
      const client = eliciting(new ClientRequestFailed(-32603, 'Internal error'));
      const result = await tool('test_elicitation_sep1330_enums').run({}, fakeContext({ client }).context);
      expect(result).toEqual({ content: [{ type: 'text', text: 'Elicitation not supported or error: MCP error -32603: Internal error' }], isError: true });
    });
  });
});
