import { describe, expect, it } from 'vitest';
import { missingClientCapabilities } from './capabilities';
import { JsonRpcErrorCode } from './error-codes';
import { headerMismatchError, jsonRpcError, missingRequiredClientCapabilityError, parseError, unsupportedProtocolVersionError } from './json-rpc-errors';

describe('JsonRpcErrorCode', () => {
  it('holds the codes of both eras', () => {
    expect(JsonRpcErrorCode).toEqual({
      ParseError: -32700,
      InvalidRequest: -32600,
      MethodNotFound: -32601,
      InvalidParams: -32602,
      InternalError: -32603,
      ResourceNotFound: -32002,
      HeaderMismatch: -32020,
      MissingRequiredClientCapability: -32021,
      UnsupportedProtocolVersion: -32022,
    });
  });
});

describe('jsonRpcError', () => {
  it('omits the id only when it is unreadable', () => {
    expect(jsonRpcError(0, -32600, 'x')).toEqual({ jsonrpc: '2.0', id: 0, error: { code: -32600, message: 'x' } });
    expect(parseError()).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: expect.any(String) } });
  });

  it('builds -32022 with supported and requested', () => {
    expect(unsupportedProtocolVersionError(1, '1900-01-01').error).toEqual({
      code: -32022,
      message: 'Unsupported protocol version',
      data: { supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'], requested: '1900-01-01' },
    });
  });

  it('builds -32020 and -32021', () => {
    expect(headerMismatchError('a', 'Mcp-Method is missing').error.code).toBe(-32020);
    expect(missingRequiredClientCapabilityError(2, { elicitation: {} }).error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: {} } },
    });
  });
});

describe('missingClientCapabilities', () => {
  it('returns undefined when every required capability is declared', () => {
    expect(missingClientCapabilities({ elicitation: { form: {} } }, { elicitation: { form: {}, url: {} } })).toBeUndefined();
    expect(missingClientCapabilities({}, undefined)).toBeUndefined();
  });

  it('lists what is missing, nested', () => {
    expect(missingClientCapabilities({ sampling: {}, elicitation: { url: {} } }, { elicitation: { form: {} } })).toEqual({
      sampling: {},
      elicitation: { url: {} },
    });
  });
});
