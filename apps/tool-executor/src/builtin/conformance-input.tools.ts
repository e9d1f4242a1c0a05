import type { ElicitParams } from '../tools/tool-context';
import { askingClient, type BuiltinTool, NO_ARGUMENTS, textResult } from './builtin-tool';

const SAMPLING_REFUSED = 'Sampling not supported or error';
const ELICITATION_REFUSED = 'Elicitation not supported or error';
const ROOTS_REFUSED = 'Roots not supported or error';
const STEP_MS = 50;

/** A form elicitation of one required field. */
function askFor(message: string, field: string, type: 'string' | 'boolean' = 'string'): ElicitParams {
  const property = type === 'string' ? { type: 'string' as const } : { type: 'boolean' as const };
  return { message, requestedSchema: { type: 'object', properties: { [field]: property }, required: [field] } };
}

/** The text of an elicitation answer's field, or what the user did instead of accepting. */
function answered(answer: { action: string; content?: Record<string, unknown> | undefined }, field: string): string {
  return answer.action === 'accept' ? String(answer.content?.[field] ?? '') : `(${answer.action})`;
}

function tool(name: string, description: string, run: BuiltinTool['run']): BuiltinTool {
  return { handler: `conformance.${name}`, definition: { name, description, inputSchema: { ...NO_ARGUMENTS } }, run };
}

/**
 * The fixtures of the newest suite's multi round-trip scenarios (SEP-2322, S-60..S-70) and of its
 * stateless-server checks (SEP-2575), with the input keys and texts the scenarios name. They ask
 * their client like any tool: a modern call answers `input_required` with these keys and retries
 * run them again with the answers (the platform seals and checks `requestState`); a legacy call sends
 * the same requests on its stream.
 */
export const CONFORMANCE_INPUT_TOOLS: BuiltinTool[] = [
  tool('test_input_required_result_elicitation', 'Asks the user for their name by elicitation, then greets them', async (_args, context) =>
    askingClient(ELICITATION_REFUSED, async () => {
      const answer = await context.client.elicit(askFor('What is your name?', 'name'), { inputKey: 'user_name' });
      return textResult(`Hello, ${answered(answer, 'name')}!`);
    }),
  ),
  tool('test_input_required_result_sampling', 'Asks the client LLM for the capital of France', async (_args, context) =>
    askingClient(SAMPLING_REFUSED, async () => {
      const answer = await context.client.createMessage(
        { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 },
        { inputKey: 'capital_question' },
      );
      return textResult(`LLM response: ${answer.content.type === 'text' ? answer.content.text : 'No response'}`);
    }),
  ),
  tool('test_input_required_result_list_roots', "Lists the client's roots", async (_args, context) =>
    askingClient(ROOTS_REFUSED, async () => {
      const { roots } = await context.client.listRoots({ inputKey: 'client_roots' });
      return textResult(`Client roots: ${roots.map((root) => root.uri).join(', ') || '(none)'}`);
    }),
  ),
  tool('test_input_required_result_request_state', 'Asks for a confirmation; the retry carries the sealed request state back', async (_args, context) =>
    askingClient(ELICITATION_REFUSED, async () => {
      // The platform opened and checked the echoed requestState before this run could see the answer.
      const answer = await context.client.elicit(askFor('Please confirm', 'ok', 'boolean'), { inputKey: 'confirm' });
      return textResult(`state-ok: confirmed=${answered(answer, 'ok')}`);
    }),
  ),
  tool('test_input_required_result_multiple_inputs', 'Asks for a name, a sampled greeting and the roots in one round', async (_args, context) =>
    askingClient(ELICITATION_REFUSED, async () => {
      const [name, greeting, { roots }] = await Promise.all([
        context.client.elicit(askFor('What is your name?', 'name'), { inputKey: 'user_name' }),
        context.client.createMessage(
          { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 },
          { inputKey: 'greeting' },
        ),
        context.client.listRoots({ inputKey: 'client_roots' }),
      ]);
      const text = greeting.content.type === 'text' ? greeting.content.text : '';
      return textResult(`${text} ${answered(name, 'name')} (${roots.length} root(s))`);
    }),
  ),
  tool('test_input_required_result_multi_round', 'Asks two questions, one round each', async (_args, context) =>
    askingClient(ELICITATION_REFUSED, async () => {
      const name = await context.client.elicit(askFor('Step 1: What is your name?', 'name'), { inputKey: 'step1' });
      const color = await context.client.elicit(askFor('Step 2: What is your favorite color?', 'color'), { inputKey: 'step2' });
      return textResult(`${answered(name, 'name')} likes ${answered(color, 'color')}`);
    }),
  ),
  tool('test_input_required_result_tampered_state', 'Asks one question; a retry with an altered requestState is refused', async (_args, context) =>
    askingClient(ELICITATION_REFUSED, async () => {
      const answer = await context.client.elicit(askFor('What is your name?', 'name'), { inputKey: 'user_name' });
      return textResult(`Hello, ${answered(answer, 'name')}!`);
    }),
  ),
  tool(
    'test_input_required_result_capabilities',
    'Asks only what the client declared: elicitation and sampling, each when declared',
    async (_args, context) => {
      const declared = context.client.capabilities;
      // S-38: never ask for a capability the request did not declare; ask the rest together.
      const asks: Promise<string>[] = [];
      if (declared['elicitation'] !== undefined)
        asks.push(context.client.elicit(askFor('What is your name?', 'name'), { inputKey: 'user_name' }).then((answer) => answered(answer, 'name')));
      if (declared['sampling'] !== undefined) {
        asks.push(
          context.client
            .createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 20 }, { inputKey: 'hello' })
            .then((answer) => (answer.content.type === 'text' ? answer.content.text : '')),
        );
      }
      return textResult(`Answers: ${(await Promise.all(asks)).join(' | ') || '(the client declared neither elicitation nor sampling)'}`);
    },
  ),
  tool(
    'test_missing_capability',
    'Needs sampling: a client that did not declare it gets -32021 (modern) or an error result (2025 era)',
    async (_args, context) =>
      askingClient(SAMPLING_REFUSED, async () => {
        const answer = await context.client.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 20 });
        return textResult(`LLM response: ${answer.content.type === 'text' ? answer.content.text : 'No response'}`);
      }),
  ),
  tool(
    'test_streaming_elicitation',
    'Reports progress, then asks a question: on the stateless wire the question ends the response, never a request of its own',
    async (_args, context) => {
      context.progress(0, 2, 'Preparing the question');
      await context.clock.sleep(STEP_MS, context.signal);
      context.progress(1, 2, 'Asking');
      return askingClient(ELICITATION_REFUSED, async () => {
        const answer = await context.client.elicit(askFor('What is your name?', 'name'), { inputKey: 'user_name' });
        return textResult(`Hello, ${answered(answer, 'name')}!`);
      });
    },
  ),
  tool('test_logging_tool', 'Logs three messages: only a request that set a log level hears them', async (_args, context) => {
    for (const step of ['started', 'working', 'completed']) {
      context.log('info', `test_logging_tool ${step}`);
      await context.clock.sleep(STEP_MS / 5, context.signal);
    }
    return textResult('Logged three messages');
  }),
];
