import { createHash, randomUUID } from 'node:crypto';
import { textResult, type BuiltinTool } from './builtin-tool';
import { CalculatorError, evaluateExpression } from './calculator';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** A result with structured content; the JSON text block is added by the calls service (S-187). */
function structured(value: Record<string, unknown>) {
  return { content: [], structuredContent: value };
}

/** Genuinely useful tools for the `demo` tenant (server `default`). */
export const DEMO_TOOLS: BuiltinTool[] = [
  {
    handler: 'demo.current_time',
    definition: {
      name: 'current_time',
      title: 'Current time',
      description: 'Returns the current date and time in an IANA time zone (default UTC), e.g. "Europe/Paris".',
      inputSchema: {
        type: 'object',
        properties: { timeZone: { type: 'string', description: 'IANA time zone name', default: 'UTC', maxLength: 64 } },
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: { timeZone: { type: 'string' }, iso: { type: 'string' }, local: { type: 'string' }, epochMs: { type: 'integer' } },
        required: ['timeZone', 'iso', 'local', 'epochMs'],
      },
      annotations: { ...READ_ONLY, idempotentHint: false },
    },
    run: async (args, context) => {
      const timeZone = typeof args['timeZone'] === 'string' ? args['timeZone'] : 'UTC';
      const now = context.clock.now();
      let local: string;
      try {
        local = new Intl.DateTimeFormat('en-CA', {
          timeZone,
          dateStyle: 'short',
          timeStyle: 'long',
          hourCycle: 'h23',
        }).format(now);
      } catch {
        return textResult(`Unknown time zone "${timeZone}": use an IANA name such as "UTC" or "America/New_York".`, true);
      }
      return structured({ timeZone, iso: new Date(now).toISOString(), local, epochMs: now });
    },
  },
  {
    handler: 'demo.calculate',
    definition: {
      name: 'calculate',
      title: 'Calculator',
      description:
        'Evaluates an arithmetic expression: + - * / % ^, parentheses, pi, e, and sqrt, abs, round, floor, ceil, sin, cos, tan, ln, log10, exp, min, max.',
      inputSchema: {
        type: 'object',
        properties: { expression: { type: 'string', minLength: 1, maxLength: 1000, description: 'e.g. "(2 + 3) * sqrt(16)"' } },
        required: ['expression'],
        additionalProperties: false,
      },
      outputSchema: { type: 'object', properties: { expression: { type: 'string' }, result: { type: 'number' } }, required: ['expression', 'result'] },
      annotations: READ_ONLY,
    },
    run: async (args) => {
      const expression = String(args['expression']);
      try {
        return structured({ expression, result: evaluateExpression(expression) });
      } catch (error) {
        if (error instanceof CalculatorError) return textResult(`Cannot evaluate "${expression}": ${error.message}`, true);
        throw error;
      }
    },
  },
  {
    handler: 'demo.generate_uuid',
    definition: {
      name: 'generate_uuid',
      title: 'Generate UUIDs',
      description: 'Generates random version 4 UUIDs (1 to 100, default 1).',
      inputSchema: {
        type: 'object',
        properties: { count: { type: 'integer', minimum: 1, maximum: 100, default: 1 } },
        additionalProperties: false,
      },
      outputSchema: { type: 'object', properties: { uuids: { type: 'array', items: { type: 'string', format: 'uuid' } } }, required: ['uuids'] },
      annotations: { ...READ_ONLY, idempotentHint: false },
    },
    run: async (args) => {
      const count = typeof args['count'] === 'number' ? args['count'] : 1;
      return structured({ uuids: Array.from({ length: count }, () => randomUUID()) });
    },
  },
  {
    handler: 'demo.hash_text',
    definition: {
      name: 'hash_text',
      title: 'Hash text',
      description: 'Computes the hex digest of a UTF-8 text with sha256 (default), sha512 or md5.',
      // Shows step-up authorization in the demo: a token with only `mcp` gets a 403 naming this scope.
      requiredScopes: ['demo:crypto'],
      inputSchema: {
        type: 'object',
        properties: {
          text: { type: 'string', maxLength: 1_000_000 },
          algorithm: { type: 'string', enum: ['sha256', 'sha512', 'md5'], default: 'sha256' },
        },
        required: ['text'],
        additionalProperties: false,
      },
      outputSchema: { type: 'object', properties: { algorithm: { type: 'string' }, hex: { type: 'string' } }, required: ['algorithm', 'hex'] },
      annotations: READ_ONLY,
    },
    run: async (args) => {
      const algorithm = typeof args['algorithm'] === 'string' ? args['algorithm'] : 'sha256';
      return structured({ algorithm, hex: createHash(algorithm).update(String(args['text']), 'utf8').digest('hex') });
    },
  },
  {
    handler: 'demo.text_statistics',
    definition: {
      name: 'text_statistics',
      title: 'Text statistics',
      description: 'Counts characters, words, lines, sentences and paragraphs of a text.',
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string', maxLength: 1_000_000 } },
        required: ['text'],
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: {
          characters: { type: 'integer' },
          words: { type: 'integer' },
          lines: { type: 'integer' },
          sentences: { type: 'integer' },
          paragraphs: { type: 'integer' },
        },
        required: ['characters', 'words', 'lines', 'sentences', 'paragraphs'],
      },
      annotations: READ_ONLY,
    },
    run: async (args) => structured(textStatistics(String(args['text']))),
  },
  {
    handler: 'demo.long_operation',
    definition: {
      name: 'long_operation',
      title: 'Long operation',
      description: 'Works for the given number of seconds (1 to 600, default 5), reporting progress each step; can be cancelled.',
      inputSchema: {
        type: 'object',
        properties: {
          seconds: { type: 'number', minimum: 0.1, maximum: 600, default: 5 },
          steps: { type: 'integer', minimum: 1, maximum: 600, description: 'Progress updates to send (default: one per second)' },
        },
        additionalProperties: false,
      },
      outputSchema: { type: 'object', properties: { seconds: { type: 'number' }, steps: { type: 'integer' } }, required: ['seconds', 'steps'] },
      annotations: READ_ONLY,
      timeoutMs: 11 * 60_000,
    },
    run: async (args, context) => {
      const seconds = typeof args['seconds'] === 'number' ? args['seconds'] : 5;
      const steps = typeof args['steps'] === 'number' ? args['steps'] : Math.max(1, Math.ceil(seconds));
      const stepMs = (seconds * 1_000) / steps;
      for (let step = 1; step <= steps; step += 1) {
        // Rejects with the abort reason as soon as the call is cancelled or times out.
        await context.clock.sleep(stepMs, context.signal);
        context.progress(step, steps, `Step ${step} of ${steps}`);
      }
      return structured({ seconds, steps });
    },
  },
];

/** Counts used by `text_statistics`. */
export function textStatistics(text: string) {
  const trimmed = text.trim();
  return {
    characters: [...text].length,
    words: trimmed ? trimmed.split(/\s+/u).length : 0,
    lines: text ? text.split(/\r\n|\r|\n/).length : 0,
    sentences: (trimmed.match(/[^.!?]+(?:[.!?]+|$)/g) ?? []).filter((sentence) => sentence.trim()).length,
    paragraphs: trimmed ? trimmed.split(/(?:\r?\n\s*){2,}/).length : 0,
  };
}
