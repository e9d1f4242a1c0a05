import { describe, expect, it } from 'vitest';
import { WireErrorCode } from '@mcp-platform/protocol-contracts';
import { requiredScopes, wireErrorToJsonRpc } from './wire-error.mapper';

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

  it('answers MISSING_CLIENT_CAPABILITY with -32021 naming what the request lacks (S-38)', () => {
    const requiredCapabilities = { sampling: {} };
    expect(wireErrorToJsonRpc(1, { code: WireErrorCode.MissingClientCapability, message: 'x', data: { requiredCapabilities } }).error).toEqual({
      code: -32021,
      message: 'Missing required client capabilities: sampling',
      data: { requiredCapabilities },
    });
  });

  it('answers HEADER_MISMATCH with -32020 and the executor message naming the header (S-115, S-116)', () => {
    const message = 'the Mcp-Param-Region header is required: the arguments carry region';
    expect(wireErrorToJsonRpc(1, { code: WireErrorCode.HeaderMismatch, message }).error).toEqual({ code: -32020, message: `Header mismatch: ${message}` });
  });

  it('answers TIMEOUT and UNAVAILABLE with a clear -32603', () => {
    expect(wireErrorToJsonRpc(1, { code: WireErrorCode.Timeout, message: 'x' }).error).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/timed out/),
    });
    expect(wireErrorToJsonRpc(1, { code: WireErrorCode.Unavailable, message: 'x' }).error).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/unavailable/),
    });
  });

  it('answers INSUFFICIENT_SCOPE with -32600 naming the scopes the operation needs', () => {
    expect(wireErrorToJsonRpc(3, { code: WireErrorCode.InsufficientScope, message: 'x', data: { scopes: ['mcp', 'demo:crypto'] } })).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32600, message: 'Forbidden: insufficient scope; this operation needs: mcp demo:crypto', data: { scopes: ['mcp', 'demo:crypto'] } },
    });
  });
});

describe('requiredScopes', () => {
  it('keeps the valid scope tokens of data.scopes, each once', () => {
    expect(requiredScopes({ scopes: ['mcp', 'demo:crypto', 'mcp', 'bad"scope', 'two words', 7] })).toEqual(['mcp', 'demo:crypto']);
  });

  it('falls back to the baseline scope when the data names none', () => {
    expect(requiredScopes(undefined)).toEqual(['mcp']);
    expect(requiredScopes({ scopes: [] })).toEqual(['mcp']);
    expect(requiredScopes({ scopes: 'mcp' })).toEqual(['mcp']);
  });
});
