import { describe, expect, it } from 'vitest';
import { callIdOfClientRequest, callTool, clientRequestId, isCallInputRequired, isCallRunAsTask } from './tool.contracts';

describe('client request ids', () => {
  it('name the call they belong to, for both eras’ call ids', () => {
    for (const callId of ['l-AbC_123-xyz', 'm-0f8e6c1a-4b5d-4e7f-9a0b-1c2d3e4f5a6b']) {
      expect(callIdOfClientRequest(clientRequestId(callId, 1))).toBe(callId);
      expect(callIdOfClientRequest(clientRequestId(callId, 42))).toBe(callId);
    }
  });

  it.each([1, '1', 'l-abc', 'l-abc#', 'l-abc#0', 'l-abc#01', 'x-abc#1', 'l-a b#1', `l-${'a'.repeat(200)}#1`, 'l-abc#1#2', null])(
    'refuses %j, which the platform never issues',
    (id) => {
      expect(callIdOfClientRequest(id)).toBeUndefined();
    },
  );
});

describe('callTool response', () => {
  it('reads a tool result as a result, even one that has no content', () => {
    for (const result of [{ content: [{ type: 'text', text: 'hi' }] }, {}, { content: [], isError: true }]) {
      const parsed = callTool.response.parse(result);
      expect(isCallInputRequired(parsed)).toBe(false);
    }
  });

  it('reads input requests as such', () => {
    const parsed = callTool.response.parse({ inputRequired: { inputRequests: { 'input-1': { method: 'roots/list' } } } });
    expect(isCallInputRequired(parsed)).toBe(true);
    expect(parsed).toEqual({ inputRequired: { inputRequests: { 'input-1': { method: 'roots/list' } } } });
  });

  it('reads runAsTask with the answers gathered before the task, keeping them (issue 14 §2.4)', () => {
    const gathered = { user_name: { action: 'accept', content: { name: 'Alice' } } };
    const parsed = callTool.response.parse({ runAsTask: true, inputResponses: gathered });
    expect(isCallRunAsTask(parsed)).toBe(true);
    expect(parsed).toEqual({ runAsTask: true, inputResponses: gathered });
    expect(callTool.response.parse({ runAsTask: true })).toEqual({ runAsTask: true });
  });

  it('refuses input requests that ask nothing or ask for a method clients do not serve', () => {
    expect(callTool.response.safeParse({ inputRequired: { inputRequests: {} } }).success).toBe(false);
    expect(callTool.response.safeParse({ inputRequired: { inputRequests: { 'input-1': { method: 'tools/call' } } } }).success).toBe(false);
  });
});
