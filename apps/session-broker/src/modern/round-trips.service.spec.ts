import { describe, expect, it } from 'vitest';
import type { Principal } from '@mcp-platform/protocol-contracts';
import { CallToolParamsSchema, describeParamsProblem } from '@mcp-platform/protocol-mcp';
import { generateRequestStateKey, parseRequestStateKeys } from '../config/request-state-keys';
import type { MethodTable } from '../methods/method-table';
import type { MethodCall } from '../requests/method-call';
import type { MethodOutcome } from '../requests/method-outcome';
import type { LazyResponse } from '../streams/lazy-response';
import type { VirtualServer } from '../virtual-servers/virtual-server.cache';
import { RequestStates } from './request-state';
import { RoundTrips } from './round-trips.service';

const USER: Principal = { subject: 'user-1', tenant: 'demo', clientId: 'client-1', scopes: ['mcp'], anonymous: false };
const SERVER = { tenant: 'demo', name: 'default' } as VirtualServer;
const ROOTS = { method: 'roots/list' as const };
const ELICIT = { method: 'elicitation/create' as const, params: { message: 'Sure?', requestedSchema: { type: 'object', properties: {} } } };

/** A method table whose one handler asks for `input-1` (elicitation), then `input-2` (roots), then reports the answers it ran with. */
class FakeTable {
  readonly runs: Array<Record<string, unknown> | undefined> = [];

  run(_method: string, _command: unknown, call: MethodCall): Promise<MethodOutcome> {
    this.runs.push(call.inputResponses);
    const answers = call.inputResponses ?? {};
    if (!('input-1' in answers)) return Promise.resolve({ kind: 'input_required', inputRequests: { 'input-1': ELICIT } });
    if (!('input-2' in answers)) return Promise.resolve({ kind: 'input_required', inputRequests: { 'input-2': ROOTS } });
    return Promise.resolve({ kind: 'result', body: { content: [{ type: 'text', text: JSON.stringify(answers) }] } });
  }
}

function setup() {
  const table = new FakeTable();
  const states = new RequestStates(parseRequestStateKeys([generateRequestStateKey('k1')]));
  const roundTrips = new RoundTrips(table as unknown as MethodTable, states);
  const call = (params: Record<string, unknown>, principal: Principal = USER): Promise<MethodOutcome> => {
    const command = CallToolParamsSchema.parse({ name: 'confirm', arguments: { a: 1 }, ...params });
    const context: MethodCall = {
      requestId: 1,
      virtualServer: SERVER,
      principal,
      protocolVersion: '2026-07-28',
      clientCapabilities: { elicitation: {}, roots: {} },
      response: {} as LazyResponse,
      tasks: 'never',
    };
    return roundTrips.run('tools/call', command, context);
  };
  return { tools: table, states, call };
}

const stateOf = (outcome: MethodOutcome): string => {
  if (outcome.kind !== 'input_required' || outcome.requestState === undefined) throw new Error(`expected input requests, got ${JSON.stringify(outcome)}`);
  return outcome.requestState;
};

describe(RoundTrips, () => {
  describe('run', () => {
    it('answers the input requests with a sealed state, then runs the tool again with every answer gathered', async () => {
      const { tools, call } = setup();
      const first = await call({});
      expect(first).toMatchObject({ kind: 'input_required', inputRequests: { 'input-1': ELICIT }, requestState: expect.any(String) });
      const second = await call({ requestState: stateOf(first), inputResponses: { 'input-1': { action: 'accept' } } });
      expect(second).toMatchObject({ kind: 'input_required', inputRequests: { 'input-2': ROOTS } });
      // The client sends only this round's answer (S-69); the earlier one comes from the state.
      const third = await call({ requestState: stateOf(second), inputResponses: { 'input-2': { roots: [] } } });
      expect(third).toEqual({
        kind: 'result',
        body: { content: [{ type: 'text', text: JSON.stringify({ 'input-1': { action: 'accept' }, 'input-2': { roots: [] } }) }] },
      });
      expect(tools.runs).toEqual([{}, { 'input-1': { action: 'accept' } }, { 'input-1': { action: 'accept' }, 'input-2': { roots: [] } }]);
    });

    it("seals the handler's continuation into the state and hands it back, unseen by the client, with the retry", async () => {
      const seen: Array<Record<string, unknown> | undefined> = [];
      const table = {
        run: (_method: string, _command: unknown, context: MethodCall): Promise<MethodOutcome> => {
          seen.push(context.continuation);
          const round = Number(context.continuation?.['round'] ?? 0);
          if (round < 2) return Promise.resolve({ kind: 'input_required', inputRequests: { [`q${round}`]: ROOTS }, continuation: { round: round + 1 } });
          return Promise.resolve({ kind: 'result', body: { content: [] } });
        },
      };
      const states = new RequestStates(parseRequestStateKeys([generateRequestStateKey('k1')]));
      const roundTrips = new RoundTrips(table as unknown as MethodTable, states);
      const context = {
        requestId: 1,
        virtualServer: SERVER,
        principal: USER,
        protocolVersion: '2026-07-28',
        clientCapabilities: {},
        tasks: 'never',
      } as unknown as MethodCall;
      const run = (params: Record<string, unknown>) => roundTrips.run('tools/call', CallToolParamsSchema.parse({ name: 'confirm', ...params }), context);

      const first = await run({});
      expect(first).not.toHaveProperty('continuation');
      expect(stateOf(first)).not.toContain('round');
      const second = await run({ requestState: stateOf(first), inputResponses: { q0: { roots: [] } } });
      const third = await run({ requestState: stateOf(second), inputResponses: { q1: { roots: [] } } });
      expect(third).toEqual({ kind: 'result', body: { content: [] } });
      expect(seen).toEqual([undefined, { round: 1 }, { round: 2 }]);
    });

    it('ignores answers of a retry to keys it did not ask last (S-68)', async () => {
      const { tools, call } = setup();
      const first = await call({});
      await call({ requestState: stateOf(first), inputResponses: { 'input-1': { action: 'decline' }, 'input-2': { roots: [] }, extra: 1 } });
      expect(tools.runs).toEqual([{}, { 'input-1': { action: 'decline' } }]);
    });

    it('hands the answers of a request without a state to the handler as they are, which uses those it asks (S-68)', async () => {
      const { tools, call } = setup();
      const answered = await call({ inputResponses: { 'input-1': { action: 'accept' }, 'input-2': { roots: [] }, extra: 1 } });
      expect(answered).toMatchObject({ kind: 'result' });
      const partly = await call({ inputResponses: { 'input-1': { action: 'accept' } } });
      expect(partly).toMatchObject({ kind: 'input_required', inputRequests: { 'input-2': ROOTS }, requestState: expect.any(String) });
      expect(tools.runs.slice(1)).toEqual([{ 'input-1': { action: 'accept' } }]);
    });

    it('asks again when the retry lacks the answer (S-68: a new input-required result, not an error)', async () => {
      const { call } = setup();
      const first = await call({});
      await expect(call({ requestState: stateOf(first), inputResponses: {} })).resolves.toMatchObject({
        kind: 'input_required',
        inputRequests: { 'input-1': ELICIT },
      });
    });

    it.each([
      ['another principal', { arguments: { a: 1 } }, { ...USER, subject: 'user-2' }],
      ['other arguments', { arguments: { a: 2 } }, USER],
      ['another tool', { name: 'other' }, USER],
    ])('refuses a state replayed by %s with -32602, and does not run the tool (S-66)', async (_case, params, principal) => {
      const { tools, call } = setup();
      const first = await call({});
      const replayed = await call({ ...params, requestState: stateOf(first), inputResponses: { 'input-1': { action: 'accept' } } }, principal);
      expect(replayed).toMatchObject({ kind: 'error', error: { code: -32602, message: 'Invalid params: requestState belongs to another request' } });
      expect(tools.runs).toHaveLength(1);
    });

    it('refuses a tampered state with -32602 (S-65)', async () => {
      const { call } = setup();
      const state = stateOf(await call({}));
      const tampered = `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`;
      await expect(call({ requestState: tampered })).resolves.toMatchObject({
        kind: 'error',
        error: { code: -32602, message: 'Invalid params: requestState is not one this server issued, or was altered' },
      });
    });

    it.each([
      [{ inputResponses: [] }, 'Invalid params: inputResponses must be an object'],
      [{ inputResponses: 'yes' }, 'Invalid params: inputResponses must be an object'],
      [{ requestState: 42 }, 'Invalid params: requestState must be a string'],
    ])('leaves malformed round-trip params %j to the params schema, which refuses them before any round', (params, message) => {
      const parsed = CallToolParamsSchema.safeParse({ name: 'confirm', ...params });
      expect(parsed.success).toBe(false);
      if (!parsed.success) expect(describeParamsProblem(parsed.error)).toBe(message);
    });

    it('binds a prompt’s state to the prompt and its arguments, a read’s to its URI (S-66)', async () => {
      const { tools, states } = setup();
      const roundTrips = new RoundTrips(tools as unknown as MethodTable, states);
      const base: MethodCall = {
        requestId: 1,
        virtualServer: SERVER,
        principal: USER,
        protocolVersion: '2026-07-28',
        clientCapabilities: {},
        response: {} as LazyResponse,
        tasks: 'never',
      };
      const first = await roundTrips.run('prompts/get', { name: 'p', arguments: { topic: 'a' } }, base);
      const state = stateOf(first);
      await expect(roundTrips.run('prompts/get', { name: 'p', arguments: { topic: 'b' }, requestState: state }, base)).resolves.toMatchObject({
        kind: 'error',
        error: { message: 'Invalid params: requestState belongs to another request' },
      });
      await expect(roundTrips.run('resources/read', { uri: 'p', requestState: state }, base)).resolves.toMatchObject({ kind: 'error' });
      await expect(
        roundTrips.run('prompts/get', { name: 'p', arguments: { topic: 'a' }, requestState: state, inputResponses: { 'input-1': {} } }, base),
      ).resolves.toMatchObject({
        kind: 'input_required',
        inputRequests: { 'input-2': ROOTS },
      });
    });

    it('refuses answers weighing more than it carries between rounds, with -32603', async () => {
      const { tools, call } = setup();
      const first = await call({});
      const huge = { action: 'accept', content: { text: 'x'.repeat(70 * 1024) } };
      await expect(call({ requestState: stateOf(first), inputResponses: { 'input-1': huge } })).resolves.toMatchObject({
        kind: 'error',
        error: { code: -32603, message: expect.stringContaining('exceed 65536 bytes') },
      });
      expect(tools.runs).toHaveLength(1);
    });
  });
});
