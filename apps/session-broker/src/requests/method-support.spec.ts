import { Logger } from '@nestjs/common';
import { describe, expect, it, vi } from 'vitest';
import { SequentialIds } from '@mcp-platform/shared-clock';
import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import { nextCursorOf, platformFailure } from './method-support';

describe('nextCursorOf', () => {
  it('names nextCursor only when there is another page (S-240)', () => {
    expect(nextCursorOf({})).toEqual({});
    expect(nextCursorOf({ nextCursor: 'n' })).toEqual({ nextCursor: 'n' });
  });
});

describe('platformFailure', () => {
  it('maps a wire error through the mapper, and logs an unexpected failure under the id the client gets (S-15)', () => {
    const logger = new Logger('test');
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const ids = new SequentialIds('error');
    expect(platformFailure(logger, ids, 'tools/call', new RpcError(WireErrorCode.NotFound, 'Tool x not found'))).toEqual({
      kind: 'error',
      error: { code: -32602, message: 'Tool x not found' },
    });
    const outcome = platformFailure(logger, ids, 'tools/call', new Error('boom'));
    expect(outcome).toMatchObject({ kind: 'error', error: { code: -32603, message: 'Internal error (id error-1)', data: { errorId: 'error-1' } } });
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('(error id error-1)'));
  });
});
