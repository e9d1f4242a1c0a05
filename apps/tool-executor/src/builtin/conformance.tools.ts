import { NO_ARGUMENTS, textResult, type BuiltinTool } from './builtin-tool';
import { TINY_PNG_BASE64, TINY_WAV_BASE64 } from './media.fixtures';

const STEP_MS = 50;

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
      content: [
        { type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } },
      ],
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
    handler: 'conformance.json_schema_2020_12_tool',
    definition: {
      name: 'json_schema_2020_12_tool',
      description: 'Tests that a JSON Schema 2020-12 inputSchema ($schema, $defs, additionalProperties) is published verbatim',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: {
          address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
        },
        properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
        additionalProperties: false,
      },
    },
    run: async (args) => textResult(`Received: ${JSON.stringify(args)}`),
  },
];
