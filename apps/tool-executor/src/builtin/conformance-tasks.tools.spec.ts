import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../test/fake-tool-context';
import { RoundTripClient } from '../tools/client-requests';
import { ToolProtocolFailure } from '../tools/tool-context';
import { type BuiltinTool, builtinToolDefinition } from './builtin-tool';
import { BuiltinToolRegistry } from './builtin-tool.registry';
import { CONFORMANCE_TASK_TOOLS } from './conformance-tasks.tools';

const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });

function fixture(name: string): BuiltinTool {
  const found = CONFORMANCE_TASK_TOOLS.find((candidate) => candidate.definition.name === name);
  if (!found) throw new Error(name);
  return found;
}

/** One run of a fixture on the modern wire (a task's run included): what it asked, by input key, and what it answered. */
async function round(name: string, args: Record<string, unknown> = {}, answers: Record<string, unknown> = {}) {
  const client = new RoundTripClient({ elicitation: {} }, answers);
  const { context, slept } = fakeContext({ client });
  const result = await fixture(name)
    .run(args, context)
    .catch((error: unknown) => ({ thrown: error }));
  return { asked: client.inputRequests(), result, slept };
}

describe('conformance tasks fixtures (the names and behaviour of the suite, SEP-2663)', () => {
  it('are registered on the conformance set, with the task support each scenario relies on', () => {
    const registry = new BuiltinToolRegistry();
    const support = Object.fromEntries(registry.set('conformance').map((tool) => [tool.definition.name, builtinToolDefinition(tool, 30_000).taskSupport]));
    expect(support).toMatchObject({
      greet: 'forbidden',
      slow_compute: 'optional',
      failing_job: 'required',
      protocol_error_job: 'required',
      confirm_delete: 'optional',
      multi_input: 'optional',
      test_tool_with_task: 'required',
    });
    expect(registry.tool('conformance.test_tool_with_task')?.beforeTask?.map((input) => input.inputKey)).toEqual(['user_name']);
  });

  it('greet greets by name', async () => {
    expect((await round('greet', { name: 'World' })).result).toEqual({ content: [{ type: 'text', text: 'Hello, World!' }] });
  });

  it('slow_compute sleeps the seconds it is given, then answers with its label', async () => {
    const { result, slept } = await round('slow_compute', { seconds: 2, label: 'x' });
    expect(slept).toEqual([2_000]);
    expect(result).toEqual({ content: [{ type: 'text', text: 'Computed after 2 s (x)' }] });
    expect(fixture('slow_compute').definition.timeoutMs).toBeGreaterThan(60_000);
  });

  it('failing_job works a second, then reports a tool error; protocol_error_job throws a protocol failure', async () => {
    const failing = await round('failing_job');
    expect(failing.slept).toEqual([1_000]);
    expect(failing.result).toMatchObject({ isError: true });
    const broken = await round('protocol_error_job');
    expect(broken.result).toEqual({ thrown: expect.any(ToolProtocolFailure) });
  });

  it('confirm_delete asks `confirm` as a boolean, then deletes on a yes and keeps on anything else', async () => {
    const first = await round('confirm_delete', { filename: 'a.txt' });
    expect(first.asked).toEqual({
      confirm: {
        method: 'elicitation/create',
        params: { message: 'Delete a.txt?', requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] } },
      },
    });
    expect((await round('confirm_delete', { filename: 'a.txt' }, { confirm: accept({ confirm: true }) })).result).toEqual({
      content: [{ type: 'text', text: 'Deleted a.txt' }],
    });
    expect((await round('confirm_delete', { filename: 'a.txt' }, { confirm: { action: 'decline' } })).result).toEqual({
      content: [{ type: 'text', text: 'Kept a.txt: (decline)' }],
    });
  });

  it('multi_input asks `first` and `second` together, still asks the one unanswered, and answers with both', async () => {
    expect(Object.keys((await round('multi_input')).asked ?? {})).toEqual(['first', 'second']);
    expect(Object.keys((await round('multi_input', {}, { first: accept({ name: 'p1', confirm: true }) })).asked ?? {})).toEqual(['second']);
    const both = await round('multi_input', {}, { first: accept({ name: 'p1', confirm: true }), second: accept({ name: 'p2', confirm: true }) });
    expect(both.result).toEqual({ content: [{ type: 'text', text: 'first: p1, second: true' }] });
  });

  it('test_tool_with_task asks before its task what its run then reads: the answer the task was created with', async () => {
    const [before] = fixture('test_tool_with_task').beforeTask ?? [];
    const unanswered = await round('test_tool_with_task');
    expect(unanswered.asked).toEqual({ user_name: { method: 'elicitation/create', params: before?.elicit } });
    const answered = await round('test_tool_with_task', {}, { user_name: accept({ name: 'Alice' }) });
    expect(answered).toMatchObject({ asked: undefined, result: { content: [{ type: 'text', text: 'Hello, Alice! (from the task)' }] } });
  });
});
