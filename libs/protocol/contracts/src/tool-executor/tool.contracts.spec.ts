import { describe, expect, it } from 'vitest';
import { callIdOfClientRequest, clientRequestId } from './tool.contracts';

describe('client request ids', () => {
  it('name the call they belong to, for both eras’ call ids', () => {
    for (const callId of ['l-AbC_123-xyz', 'm-0f8e6c1a-4b5d-4e7f-9a0b-1c2d3e4f5a6b']) {
      expect(callIdOfClientRequest(clientRequestId(callId, 1))).toBe(callId);
      expect(callIdOfClientRequest(clientRequestId(callId, 42))).toBe(callId);
    }
  });

  it.each([1, '1', 'l-abc', 'l-abc#', 'l-abc#0', 'l-abc#01', 'x-abc#1', 'l-a b#1', `l-${'a'.repeat(200)}#1`, 'l-abc#1#2', null])('refuses %j, which the platform never issues', (id) => {
    expect(callIdOfClientRequest(id)).toBeUndefined();
  });
});
