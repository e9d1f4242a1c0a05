import { createHash, randomUUID } from 'node:crypto';
import { askingClient, type BuiltinTool, NO_ARGUMENTS, textResult } from './builtin-tool';
import { CalculatorError, evaluateExpression } from './calculator';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** How long a tool waits for a person to answer the client (a dialog, a sampling approval). */
const PERSON_TIMEOUT_MS = 5 * 60_000;

/** Rows `export_report` adds to its report each second. */
const REPORT_ROWS_PER_SECOND = 250;

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
      // Read-only and idempotent: a task whose worker died mid-run may simply run it again.
      execution: { taskSupport: 'optional' },
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
  {
    handler: 'demo.export_report',
    definition: {
      name: 'export_report',
      title: 'Export a report',
      description:
        'Builds a report over the given number of seconds (1..3600, default 10), reporting progress; runs only as a task. With confirm, asks the user (elicitation) before it starts.',
      inputSchema: {
        type: 'object',
        properties: {
          seconds: { type: 'integer', minimum: 1, maximum: 3600, default: 10, description: 'How long building the report takes' },
          confirm: { type: 'boolean', default: false, description: 'Ask the user to confirm the export before it starts' },
        },
        additionalProperties: false,
      },
      outputSchema: { type: 'object', properties: { rows: { type: 'integer' }, seconds: { type: 'integer' } }, required: ['rows', 'seconds'] },
      // Not idempotent: a task whose worker died mid-run fails rather than building the report twice.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      // Past the longest report, so the report's own length decides, not the timeout.
      timeoutMs: 61 * 60_000,
      // spec S-197: a plain call is refused; a client must ask for a task.
      execution: { taskSupport: 'required' },
    },
    run: async (args, context) => {
      const seconds = typeof args['seconds'] === 'number' ? args['seconds'] : 10;
      if (args['confirm'] === true) {
        // A task asks its client like any call: legacy on the tasks/result stream (S-286), modern by input requests (S-300).
        const unconfirmed = await askingClient('Cannot ask the user to confirm the export', async () => {
          const answer = await context.client.elicit({
            message: `Export a report over ${seconds} s?`,
            requestedSchema: { type: 'object', properties: { confirmed: { type: 'boolean', title: 'Export', default: false } }, required: ['confirmed'] },
          });
          return answer.action === 'accept' && answer.content?.['confirmed'] === true
            ? undefined
            : textResult('The user did not confirm the export; nothing was built');
        });
        if (unconfirmed) return unconfirmed;
      }
      let rows = 0;
      for (let second = 1; second <= seconds; second += 1) {
        await context.clock.sleep(1_000, context.signal);
        rows += REPORT_ROWS_PER_SECOND;
        context.progress(second, seconds, `${rows} rows`);
      }
      return { content: [{ type: 'text', text: `Report ready: ${rows} rows in ${seconds} s` }], structuredContent: { rows, seconds } };
    },
  },
  {
    handler: 'demo.confirm_action',
    definition: {
      name: 'confirm_action',
      title: 'Confirm an action',
      description:
        'Asks the user, through the client (elicitation), to confirm an action before you perform it; reports whether they confirmed, refused, declined or cancelled. Performs nothing itself.',
      inputSchema: {
        type: 'object',
        properties: { action: { type: 'string', minLength: 1, maxLength: 500, description: 'What you are about to do, in words the user understands' } },
        required: ['action'],
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: {
          action: { type: 'string' },
          response: { type: 'string', enum: ['accept', 'decline', 'cancel'], description: "The user's answer to the form" },
          confirmed: { type: 'boolean', description: 'True only when the user accepted the form with the box checked' },
        },
        required: ['action', 'response', 'confirmed'],
      },
      annotations: { ...READ_ONLY, idempotentHint: false },
      timeoutMs: PERSON_TIMEOUT_MS,
    },
    run: async (args, context) => {
      const action = String(args['action']);
      return askingClient('Cannot ask the user for a confirmation', async () => {
        const answer = await context.client.elicit({
          message: `Please confirm: ${action}`,
          requestedSchema: {
            type: 'object',
            properties: { confirmed: { type: 'boolean', title: 'Go ahead', description: 'Check to confirm the action', default: false } },
            required: ['confirmed'],
          },
        });
        if (answer.action !== 'accept') return structured({ action, response: answer.action, confirmed: false });
        const confirmed = answer.content?.['confirmed'];
        // spec S-326: check what an accepted form holds before acting on it.
        if (typeof confirmed !== 'boolean') return textResult('The client accepted the confirmation form without a boolean "confirmed" field', true);
        return structured({ action, response: 'accept', confirmed });
      });
    },
  },
  {
    handler: 'demo.summarize_text',
    definition: {
      name: 'summarize_text',
      title: 'Summarize text',
      description:
        "Summarizes a text with the client's own language model (sampling; the client may ask the user to approve). Returns the summary and the model that wrote it.",
      inputSchema: {
        type: 'object',
        properties: {
          text: { type: 'string', minLength: 1, maxLength: 100_000 },
          maxTokens: { type: 'integer', minimum: 16, maximum: 4000, default: 300, description: 'Longest summary, in tokens' },
        },
        required: ['text'],
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: { summary: { type: 'string' }, model: { type: 'string' }, stopReason: { type: 'string' } },
        required: ['summary', 'model'],
      },
      annotations: { ...READ_ONLY, idempotentHint: false },
      timeoutMs: PERSON_TIMEOUT_MS,
    },
    run: async (args, context) => {
      const maxTokens = typeof args['maxTokens'] === 'number' ? args['maxTokens'] : 300;
      return askingClient("Cannot ask the client's model for a summary", async () => {
        const answer = await context.client.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: `Summarize the following text:\n\n${String(args['text'])}` } }],
          systemPrompt: 'You write short, faithful summaries: the main points only, in the language of the text, without preamble.',
          // spec S-332: hints are substrings of model names, tried in order; priorities go from 0 to 1.
          modelPreferences: {
            hints: [{ name: 'haiku' }, { name: 'flash' }, { name: 'mini' }],
            speedPriority: 0.8,
            costPriority: 0.6,
            intelligencePriority: 0.4,
          },
          maxTokens,
        });
        if (answer.content.type !== 'text')
          return textResult(`The client's model (${answer.model}) answered with ${answer.content.type} content instead of text`, true);
        return structured({ summary: answer.content.text, model: answer.model, ...(answer.stopReason === undefined ? {} : { stopReason: answer.stopReason }) });
      });
    },
  },
  {
    handler: 'demo.list_client_roots',
    definition: {
      name: 'list_client_roots',
      title: 'List client roots',
      description: 'Lists the roots (directories, as file:// URIs) the client shares with servers.',
      inputSchema: { ...NO_ARGUMENTS },
      outputSchema: {
        type: 'object',
        properties: {
          roots: { type: 'array', items: { type: 'object', properties: { uri: { type: 'string' }, name: { type: 'string' } }, required: ['uri'] } },
        },
        required: ['roots'],
      },
      annotations: { ...READ_ONLY, idempotentHint: false },
    },
    run: async (_args, context) =>
      askingClient("Cannot list the client's roots", async () => {
        const { roots } = await context.client.listRoots();
        return structured({ roots: roots.map(({ uri, name }) => (name === undefined ? { uri } : { uri, name })) });
      }),
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
