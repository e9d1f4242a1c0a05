import { type ElicitParams, ToolProtocolFailure } from '../tools/tool-context';
import { askingClient, type BuiltinTool, NO_ARGUMENTS, textResult } from './builtin-tool';

const ELICITATION_REFUSED = 'Elicitation not supported or error';
/** How long `failing_job` works before it fails ("after ~1s", the suite says). */
const FAILING_JOB_MS = 1_000;
/** The longest `slow_compute` sleeps: the suite asks 60 s of a task it then cancels. */
const SLOW_COMPUTE_MAX_SECONDS = 120;

/** A form elicitation of one required field. */
function askFor(message: string, field: string, type: 'string' | 'boolean'): ElicitParams {
  const property = type === 'string' ? { type: 'string' as const } : { type: 'boolean' as const };
  return { message, requestedSchema: { type: 'object', properties: { [field]: property }, required: [field] } };
}

/** The text of an elicitation answer's field, or what the user did instead of accepting. */
function answered(answer: { action: string; content?: Record<string, unknown> | undefined }, field: string): string {
  return answer.action === 'accept' ? String(answer.content?.[field] ?? '') : `(${answer.action})`;
}

/** What `test_tool_with_task` asks before its task exists: the name its task's result greets. */
const USER_NAME_INPUT = { inputKey: 'user_name', elicit: askFor('What is your name?', 'name', 'string') };

/**
 * The fixtures of the newest suite's tasks scenarios (SEP-2663, the `io.modelcontextprotocol/tasks`
 * extension: S-295..S-307), with the names, arguments and behaviour those scenarios name. Task-supporting
 * tools run as tasks when the request declared the extension (the server decides, S-296) and as plain
 * calls otherwise; `failing_job` and `test_tool_with_task` require tasks (-32021 without the extension).
 */
export const CONFORMANCE_TASK_TOOLS: BuiltinTool[] = [
  {
    handler: 'conformance.greet',
    definition: {
      name: 'greet',
      description: 'Greets by name, synchronously (never a task)',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
    run: async (args) => textResult(`Hello, ${String(args['name'])}!`),
  },
  {
    handler: 'conformance.slow_compute',
    definition: {
      name: 'slow_compute',
      description: 'Sleeps `seconds` seconds, then answers; runs as a task when the client declared the tasks extension',
      inputSchema: {
        type: 'object',
        properties: { seconds: { type: 'number', minimum: 0, maximum: SLOW_COMPUTE_MAX_SECONDS }, label: { type: 'string' } },
        required: ['seconds'],
      },
      // Longer than the longest sleep: a cancelled task stops on its signal, never on this timeout.
      timeoutMs: (SLOW_COMPUTE_MAX_SECONDS + 10) * 1_000,
      execution: { taskSupport: 'optional' },
    },
    run: async (args, context) => {
      const seconds = Number(args['seconds']);
      await context.clock.sleep(seconds * 1_000, context.signal);
      const label = typeof args['label'] === 'string' ? ` (${args['label']})` : '';
      return textResult(`Computed after ${seconds} s${label}`);
    },
  },
  {
    handler: 'conformance.failing_job',
    definition: {
      name: 'failing_job',
      description: 'Works for about a second, then reports a tool error (a task ends completed with isError); only runs as a task',
      inputSchema: { ...NO_ARGUMENTS },
      execution: { taskSupport: 'required' },
    },
    run: async (_args, context) => {
      await context.clock.sleep(FAILING_JOB_MS, context.signal);
      return textResult('failing_job failed, as it always does', true);
    },
  },
  {
    handler: 'conformance.protocol_error_job',
    definition: {
      name: 'protocol_error_job',
      description: 'Fails with a protocol-level error (a task ends failed with a JSON-RPC error); only runs as a task',
      inputSchema: { ...NO_ARGUMENTS },
      execution: { taskSupport: 'required' },
    },
    run: async () => {
      throw new ToolProtocolFailure('protocol_error_job broke, as it always does');
    },
  },
  {
    handler: 'conformance.confirm_delete',
    definition: {
      name: 'confirm_delete',
      description: 'Asks the user to confirm deleting `filename` (one elicitation), then says what it did',
      inputSchema: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
      execution: { taskSupport: 'optional' },
    },
    run: async (args, context) =>
      askingClient(ELICITATION_REFUSED, async () => {
        const filename = String(args['filename']);
        const answer = await context.client.elicit(askFor(`Delete ${filename}?`, 'confirm', 'boolean'), { inputKey: 'confirm' });
        const confirmed = answer.action === 'accept' && answer.content?.['confirm'] === true;
        return textResult(confirmed ? `Deleted ${filename}` : `Kept ${filename}: ${answered(answer, 'confirm')}`);
      }),
  },
  {
    handler: 'conformance.multi_input',
    definition: {
      name: 'multi_input',
      description: 'Asks two questions at once (input keys `first` and `second`), then answers with both',
      inputSchema: { ...NO_ARGUMENTS },
      execution: { taskSupport: 'optional' },
    },
    run: async (_args, context) =>
      askingClient(ELICITATION_REFUSED, async () => {
        const [first, second] = await Promise.all([
          context.client.elicit(askFor('What is your name?', 'name', 'string'), { inputKey: 'first' }),
          context.client.elicit(askFor('Do you confirm?', 'confirm', 'boolean'), { inputKey: 'second' }),
        ]);
        return textResult(`first: ${answered(first, 'name')}, second: ${answered(second, 'confirm')}`);
      }),
  },
  {
    handler: 'conformance.test_tool_with_task',
    definition: {
      name: 'test_tool_with_task',
      description: 'Asks the user their name before its task is created (input key `user_name`), then greets them from the task',
      inputSchema: { ...NO_ARGUMENTS },
      execution: { taskSupport: 'required' },
    },
    beforeTask: [USER_NAME_INPUT],
    run: async (_args, context) =>
      askingClient(ELICITATION_REFUSED, async () => {
        // Answered from the task's stored answers: the call gathered it before the task was created.
        const answer = await context.client.elicit(USER_NAME_INPUT.elicit, { inputKey: USER_NAME_INPUT.inputKey });
        return textResult(`Hello, ${answered(answer, 'name')}! (from the task)`);
      }),
  },
];
