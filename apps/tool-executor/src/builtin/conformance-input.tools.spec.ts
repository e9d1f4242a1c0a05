import { describe, expect, it } from 'vitest';
import { fakeContext } from '../../test/fake-tool-context';
import { RoundTripClient } from '../tools/client-requests';
import { CONFORMANCE_INPUT_TOOLS } from './conformance-input.tools';

const ALL = { sampling: {}, elicitation: {}, roots: {} };
const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });
const sampled = (text: string) => ({ role: 'assistant', content: { type: 'text', text }, model: 'test-model', stopReason: 'endTurn' });
const ROOTS = { roots: [{ uri: 'file:///test/root', name: 'Test Root' }] };

/** One round of a fixture on the modern wire: what it asked (by input key) and what it answered. */
async function round(name: string, answers: Record<string, unknown> = {}, capabilities: Record<string, unknown> = ALL) {
  const fixture = CONFORMANCE_INPUT_TOOLS.find((candidate) => candidate.definition.name === name);
  if (!fixture) throw new Error(name);
  const client = new RoundTripClient(capabilities, answers);
  const result = await fixture.run({}, fakeContext({ client }).context).catch((error: unknown) => ({ thrown: error }));
  return { asked: client.inputRequests(), result };
}

describe('conformance input-required fixtures (the keys and texts of the suite)', () => {
  it('test_input_required_result_elicitation asks user_name, then greets by the answer', async () => {
    const first = await round('test_input_required_result_elicitation');
    expect(first.asked).toEqual({
      user_name: {
        method: 'elicitation/create',
        params: { message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      },
    });
    const second = await round('test_input_required_result_elicitation', { user_name: accept({ name: 'Alice' }), unknown_extra_key: accept({ foo: 'bar' }) });
    expect(second).toEqual({ asked: undefined, result: { content: [{ type: 'text', text: 'Hello, Alice!' }] } });
  });

  it('test_input_required_result_sampling and _list_roots ask capital_question and client_roots', async () => {
    expect((await round('test_input_required_result_sampling')).asked).toEqual({
      capital_question: {
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 },
      },
    });
    expect((await round('test_input_required_result_sampling', { capital_question: sampled('Paris.') })).result).toEqual({
      content: [{ type: 'text', text: 'LLM response: Paris.' }],
    });
    expect((await round('test_input_required_result_list_roots')).asked).toEqual({ client_roots: { method: 'roots/list' } });
    expect((await round('test_input_required_result_list_roots', { client_roots: ROOTS })).result).toEqual({
      content: [{ type: 'text', text: 'Client roots: file:///test/root' }],
    });
  });

  it('test_input_required_result_multiple_inputs asks all three kinds in one round', async () => {
    const first = await round('test_input_required_result_multiple_inputs');
    expect(Object.entries(first.asked ?? {}).map(([key, request]) => [key, request.method])).toEqual([
      ['user_name', 'elicitation/create'],
      ['greeting', 'sampling/createMessage'],
      ['client_roots', 'roots/list'],
    ]);
    const second = await round('test_input_required_result_multiple_inputs', {
      user_name: accept({ name: 'Alice' }),
      greeting: sampled('Hello there!'),
      client_roots: ROOTS,
    });
    expect(second.result).toEqual({ content: [{ type: 'text', text: 'Hello there! Alice (1 root(s))' }] });
  });

  it('test_input_required_result_multi_round asks step1, then step2, then completes', async () => {
    expect(Object.keys((await round('test_input_required_result_multi_round')).asked ?? {})).toEqual(['step1']);
    expect(Object.keys((await round('test_input_required_result_multi_round', { step1: accept({ name: 'Alice' }) })).asked ?? {})).toEqual(['step2']);
    const last = await round('test_input_required_result_multi_round', { step1: accept({ name: 'Alice' }), step2: accept({ color: 'blue' }) });
    expect(last.result).toEqual({ content: [{ type: 'text', text: 'Alice likes blue' }] });
  });

  it('test_input_required_result_request_state confirms with "state-ok"', async () => {
    expect(Object.keys((await round('test_input_required_result_request_state')).asked ?? {})).toEqual(['confirm']);
    const done = await round('test_input_required_result_request_state', { confirm: accept({ ok: true }) });
    expect(done.result).toEqual({ content: [{ type: 'text', text: 'state-ok: confirmed=true' }] });
  });

  it('test_input_required_result_capabilities asks only what the request declared (S-64)', async () => {
    expect(Object.values((await round('test_input_required_result_capabilities', {}, { sampling: {} })).asked ?? {}).map((request) => request.method)).toEqual([
      'sampling/createMessage',
    ]);
    expect(
      Object.values((await round('test_input_required_result_capabilities', {}, { elicitation: {} })).asked ?? {}).map((request) => request.method),
    ).toEqual(['elicitation/create']);
    expect((await round('test_input_required_result_capabilities', {}, {})).result).toEqual({
      content: [{ type: 'text', text: 'Answers: (the client declared neither elicitation nor sampling)' }],
    });
  });

  it('test_missing_capability fails without sampling, recording what was missing for the -32021', async () => {
    const fixture = CONFORMANCE_INPUT_TOOLS.find((candidate) => candidate.definition.name === 'test_missing_capability');
    const client = new RoundTripClient({}, {});
    const result = await fixture?.run({}, fakeContext({ client }).context);
    expect(result).toMatchObject({ isError: true });
    expect(client.missingCapabilities()).toEqual({ sampling: {} });
  });

  it('test_logging_tool logs three messages and test_streaming_elicitation reports progress before asking', async () => {
    const logging = CONFORMANCE_INPUT_TOOLS.find((candidate) => candidate.definition.name === 'test_logging_tool');
    const logged: unknown[] = [];
    const { context } = fakeContext({ log: (_level, data) => void logged.push(data) });
    await expect(logging?.run({}, context)).resolves.toEqual({ content: [{ type: 'text', text: 'Logged three messages' }] });
    expect(logged).toEqual(['test_logging_tool started', 'test_logging_tool working', 'test_logging_tool completed']);

    const streaming = await round('test_streaming_elicitation');
    expect(Object.keys(streaming.asked ?? {})).toEqual(['user_name']);
  });
});
