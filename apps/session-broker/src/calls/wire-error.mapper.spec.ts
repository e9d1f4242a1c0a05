import { describe, expect, it } from 'vitest';
import { WireErrorCode } from '@mcp-platform/protocol-contracts';
import { wireErrorToJsonRpc } from './wire-error.mapper';

describe('wireErrorToJsonRpc', () => {
  it('maps every wire error code to a JSON-RPC error with the request id', () => {
    for (const code of Object.values(WireErrorCode)) {
      const response = wireErrorToJsonRpc(5, { code, message: 'm' });
      expect(response.id).toBe(5);
      expect(response.error.code).toBeLessThan(0);
    }
  });

  it('answers an unknown tool (INVALID_PARAMS) with -32602 and the executor message', () => {
    expect(wireErrorToJsonRpc(1, { code: WireErrorCode.InvalidParams, message: 'Unknown tool: nope' }).error).toEqual({
      code: -32602,
      message: 'Unknown tool: nope',
    });
  });

  it('answers INTERNAL with -32603 carrying only the error id', () => {
    expect(wireErrorToJsonRpc(1, { code: WireErrorCode.Internal, message: 'stack trace here', errorId: 'e-1' }).error).toEqual({
      code: -32603,
      message: 'Internal error (id e-1)',
      data: { errorId: 'e-1' },
    });
  });

  it('answers TIMEOUT and UNAVAILABLE with a clear -32603', () => {
    expect(wireErrorToJsonRpc(1, { code: WireErrorCode.Timeout, message: 'x' }).error).toMatchObject({ code: -32603, message: expect.stringMatching(/timed out/) });
    expect(wireErrorToJsonRpc(1, { code: WireErrorCode.Unavailable, message: 'x' }).error).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/unavailable/),
    });
  });
});
