import { describe, expect, it } from 'vitest';
import { describeOutboundFailure } from './outbound-failure';

describe('describeOutboundFailure', () => {
  it('says the error and every cause, each with its code unless the message already names it', () => {
    const dns = Object.assign(new Error('getaddrinfo ENOTFOUND tools.internal'), { code: 'ENOTFOUND' });
    const refused = Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED', cause: dns });
    expect(describeOutboundFailure(new TypeError('fetch failed', { cause: refused }))).toBe(
      'fetch failed: connection refused (ECONNREFUSED): getaddrinfo ENOTFOUND tools.internal',
    );
  });

  it('follows at most five causes, and words what is not an Error', () => {
    let error: unknown = new Error('innermost');
    for (let level = 1; level <= 7; level++) error = new Error(`level ${level}`, { cause: error });
    expect(describeOutboundFailure(error).split(': ')).toEqual(['level 7', 'level 6', 'level 5', 'level 4', 'level 3']);
    expect(describeOutboundFailure('socket hang up')).toBe('socket hang up');
  });
});
