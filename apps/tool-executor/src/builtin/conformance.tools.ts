import type { ElicitResult } from '../tools/tool-context';
import { askingClient, type BuiltinTool, NO_ARGUMENTS, textResult } from './builtin-tool';
import { TINY_PNG_BASE64, TINY_WAV_BASE64 } from './media.fixtures';

const STEP_MS = 50;

const SAMPLING_REFUSED = 'Sampling not supported or error';
const ELICITATION_REFUSED = 'Elicitation not supported or error';

/** How the elicitation fixtures report the answer (the texts of the suite's reference server). */
function elicitationReport(prefix: string, answer: ElicitResult) {
  return textResult(`${prefix}: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
}

/**
 * The fixtures the official conformance suite calls by name (shared/spec/conformance.md, "Server-side
 * fixtures"), with the texts its scenarios describe. Tenant `conformance`, server `everything`.
 */
export const CONFORMANCE_TOOLS: BuiltinTool[] = [
  {
    handler: 'conformance.test_simple_text',
    definition: { name: 'test_simple_text', description: 'Tests simple text content response', inputSchema: { ...NO_ARGUMENTS } },
    run: async () => textResult('This is a simple text response for testing.'),
  },
  {
    handler: 'conformance.test_image_content',
    definition: { name: 'test_image_content', description: 'Tests image content response', inputSchema: { ...NO_ARGUMENTS } },
    run: async () => ({ content: [{ type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' }] }),
  },
  {
    handler: 'conformance.test_audio_content',
    definition: { name: 'test_audio_content', description: 'Tests audio content response', inputSchema: { ...NO_ARGUMENTS } },
    run: async () => ({ content: [{ type: 'audio', data: TINY_WAV_BASE64, mimeType: 'audio/wav' }] }),
  },
  {
    handler: 'conformance.test_embedded_resource',
    definition: { name: 'test_embedded_resource', description: 'Tests embedded resource content response', inputSchema: { ...NO_ARGUMENTS } },
    run: async () => ({
      content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
    }),
  },
  {
    handler: 'conformance.test_multiple_content_types',
    definition: {
      name: 'test_multiple_content_types',
      description: 'Tests response with multiple content types (text, image, resource)',
      inputSchema: { ...NO_ARGUMENTS },
    },
    run: async () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) },
        },
      ],
    }),
  },
  {
    handler: 'conformance.test_tool_with_logging',
    definition: { name: 'test_tool_with_logging', description: 'Tests tool that emits log messages during execution', inputSchema: { ...NO_ARGUMENTS } },
    run: async (_args, context) => {
      context.log('info', 'Tool execution started');
      await context.clock.sleep(STEP_MS, context.signal);
      context.log('info', 'Tool processing data');
      await context.clock.sleep(STEP_MS, context.signal);
      context.log('info', 'Tool execution completed');
      return textResult('Tool with logging executed successfully');
    },
  },
  {
    handler: 'conformance.test_reconnection',
    definition: {
      name: 'test_reconnection',
      description:
        'Tests SSE stream disconnection and client reconnection (SEP-1699). Server will close the stream mid-call and send the result after client reconnects.',
      inputSchema: { ...NO_ARGUMENTS },
    },
    // spec S-81: the connection closes with `retry` before the result; the client resumes with Last-Event-ID (S-90).
    run: async (_args, context) => {
      await context.clock.sleep(STEP_MS * 2, context.signal);
      context.closeConnection();
      await context.clock.sleep(STEP_MS * 2, context.signal);
      return textResult('Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.');
    },
  },
  {
    handler: 'conformance.test_error_handling',
    definition: { name: 'test_error_handling', description: 'Tests error response handling', inputSchema: { ...NO_ARGUMENTS } },
    // A tool failure is a result with isError, never a protocol error (S-188).
    run: async () => textResult('This tool intentionally returns an error for testing', true),
  },
  {
    handler: 'conformance.test_tool_with_progress',
    definition: { name: 'test_tool_with_progress', description: 'Tests tool that reports progress notifications', inputSchema: { ...NO_ARGUMENTS } },
    run: async (_args, context) => {
      for (const [index, progress] of [0, 50, 100].entries()) {
        if (index > 0) await context.clock.sleep(STEP_MS, context.signal);
        context.progress(progress, 100, `Completed step ${progress} of 100`);
      }
      return textResult('Progress reported: 0, 50 and 100 of 100');
    },
  },
  {
    handler: 'conformance.test_sampling',
    definition: {
      name: 'test_sampling',
      description: 'Tests server-initiated sampling (LLM completion request)',
      inputSchema: {
        type: 'object',
        properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } },
        required: ['prompt'],
        additionalProperties: false,
      },
    },
    run: async (args, context) =>
      askingClient(SAMPLING_REFUSED, async () => {
        const answer = await context.client.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: String(args['prompt']) } }],
          maxTokens: 100,
        });
        return textResult(`LLM response: ${answer.content.type === 'text' ? answer.content.text : 'No response'}`);
      }),
  },
  {
    handler: 'conformance.test_elicitation',
    definition: {
      name: 'test_elicitation',
      description: 'Tests server-initiated elicitation (user input request)',
      inputSchema: {
        type: 'object',
        properties: { message: { type: 'string', description: 'The message to show the user' } },
        required: ['message'],
        additionalProperties: false,
      },
    },
    // The schema of the scenario's description (username, email), which its client's answer fills.
    run: async (args, context) =>
      askingClient(ELICITATION_REFUSED, async () => {
        const answer = await context.client.elicit({
          message: String(args['message']),
          requestedSchema: {
            type: 'object',
            properties: {
              username: { type: 'string', description: "User's response" },
              email: { type: 'string', description: "User's email address" },
            },
            required: ['username', 'email'],
          },
        });
        return elicitationReport('User response', answer);
      }),
  },
  {
    handler: 'conformance.test_elicitation_sep1034_defaults',
    definition: {
      name: 'test_elicitation_sep1034_defaults',
      description: 'Tests elicitation with default values per SEP-1034',
      inputSchema: { ...NO_ARGUMENTS },
    },
    // One field per primitive type, each with a default (S-318).
    run: async (_args, context) =>
      askingClient(ELICITATION_REFUSED, async () => {
        const answer = await context.client.elicit({
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
        });
        return elicitationReport('Elicitation completed', answer);
      }),
  },
  {
    handler: 'conformance.test_elicitation_sep1330_enums',
    definition: {
      name: 'test_elicitation_sep1330_enums',
      description: 'Tests elicitation with enum schema improvements per SEP-1330',
      inputSchema: { ...NO_ARGUMENTS },
    },
    // The five enum shapes of S-318: untitled and titled single-select, legacy enumNames, untitled and titled multi-select.
    run: async (_args, context) =>
      askingClient(ELICITATION_REFUSED, async () => {
        const answer = await context.client.elicit({
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
        });
        return elicitationReport('Elicitation completed', answer);
      }),
  },
  {
    handler: 'conformance.json_schema_2020_12_tool',
    definition: {
      name: 'json_schema_2020_12_tool',
      description: 'Tool with JSON Schema 2020-12 features',
      // Published verbatim (S-183): $schema, $defs with an $anchor, composition and conditional keywords.
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
        },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
          contactMethod: { type: 'string', enum: ['phone', 'email'] },
          phone: { type: 'string' },
          email: { type: 'string' },
        },
        allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
        if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
        then: { required: ['phone'] },
        else: { required: ['email'] },
        additionalProperties: false,
      },
    },
    run: async (args) => textResult(`Received: ${JSON.stringify(args)}`),
  },
  {
    handler: 'conformance.test_custom_headers',
    definition: {
      name: 'test_custom_headers',
      description: 'Tests Mcp-Param-* headers mirroring x-mcp-header arguments (SEP-2243)',
      // The suite's http-custom-header-server-validation takes the first listed tool with x-mcp-header and its
      // first string one (region); the only such tool here, so the scenario always lands on it (S-116).
      inputSchema: {
        type: 'object',
        properties: {
          region: { type: 'string', description: 'Mirrored into Mcp-Param-Region', 'x-mcp-header': 'Region' },
          priority: { type: 'integer', description: 'Mirrored into Mcp-Param-Priority', 'x-mcp-header': 'Priority' },
          verbose: { type: 'boolean', description: 'Mirrored into Mcp-Param-Verbose', 'x-mcp-header': 'Verbose' },
          query: { type: 'string', description: 'Not mirrored' },
        },
        required: ['region', 'priority', 'query'],
      },
    },
    run: async (args) => textResult(`Received: ${JSON.stringify(args)}`),
  },
];
