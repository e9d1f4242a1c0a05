import { describe, expect, it } from 'vitest';
import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import { errorOf } from './rpc-errors';

describe(errorOf, () => {
  it('returns the wire error the request was rejected with', async () => {
    const error = await errorOf(Promise.reject(new RpcError(WireErrorCode.NotFound, 'Unknown task')));
    expect(error).toMatchObject({ code: 'NOT_FOUND', message: 'Unknown task' });
  });

  it('fails when the request succeeded', async () => {
    await expect(errorOf(Promise.resolve({ ok: true }))).rejects.toThrow('expected the request to fail');
  });

  it('passes on an error that is not a wire error', async () => {
    const crash = new TypeError('boom');
    await expect(errorOf(Promise.reject(crash))).rejects.toBe(crash);
  });
});
