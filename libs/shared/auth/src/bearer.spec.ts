import { describe, expect, it } from 'vitest';
import { bearerChallenge, parseBearerAuthorization } from './bearer';

const PRM = 'http://127.0.0.1:3000/.well-known/oauth-protected-resource/demo/default/mcp';

describe('bearerChallenge', () => {
  it('names the metadata document and the baseline scope when no token came (S-134, S-135)', () => {
    expect(bearerChallenge({ resourceMetadata: PRM, scope: 'mcp' })).toBe(`Bearer resource_metadata="${PRM}", scope="mcp"`);
  });

  it('adds error and error_description when a token was refused', () => {
    expect(bearerChallenge({ resourceMetadata: PRM, scope: ['mcp'], error: 'invalid_token', errorDescription: 'the token has expired' })).toBe(
      `Bearer resource_metadata="${PRM}", scope="mcp", error="invalid_token", error_description="the token has expired"`,
    );
  });

  it('joins a scope list with single spaces (S-142)', () => {
    expect(bearerChallenge({ error: 'insufficient_scope', scope: ['mcp', 'demo:crypto'] })).toBe('Bearer scope="mcp demo:crypto", error="insufficient_scope"');
  });

  it('is a bare Bearer without parameters', () => {
    expect(bearerChallenge()).toBe('Bearer');
  });

  it('keeps quotes, backslashes and line breaks out of the description so the header cannot be split', () => {
    const challenge = bearerChallenge({ error: 'invalid_request', errorDescription: 'bad "value"\\ here\r\nSet-Cookie: x=1' });
    expect(challenge).toBe(`Bearer error="invalid_request", error_description="bad 'value'/ here??Set-Cookie: x=1"`);
    expect(challenge).not.toMatch(/[\r\n]/);
  });

  it('escapes quotes and backslashes in other values as quoted-pairs (RFC 7235)', () => {
    expect(bearerChallenge({ resourceMetadata: 'http://x/"a\\b' })).toBe('Bearer resource_metadata="http://x/\\"a\\\\b"');
  });

  it('replaces characters outside printable ASCII', () => {
    expect(bearerChallenge({ errorDescription: 'héllo' })).toBe('Bearer error_description="h?llo"');
  });
});

describe('parseBearerAuthorization', () => {
  it('returns the token of a Bearer header, whatever the scheme case', () => {
    expect(parseBearerAuthorization('Bearer abc.def-ghi_jkl~mno+p/q==')).toBe('abc.def-ghi_jkl~mno+p/q==');
    expect(parseBearerAuthorization('bearer a.b.c')).toBe('a.b.c');
    expect(parseBearerAuthorization('BEARER   a.b.c')).toBe('a.b.c');
  });

  it('returns undefined without a header', () => {
    expect(parseBearerAuthorization(undefined)).toBeUndefined();
  });

  it('calls another scheme, an empty or a spaced value, or a repeated header malformed', () => {
    for (const header of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', 'Bearer a b', 'Bearer "a.b.c"', 'Bearera.b.c', 'a.b.c', '']) {
      expect(parseBearerAuthorization(header)).toBe('malformed');
    }
    expect(parseBearerAuthorization(['Bearer a.b.c', 'Bearer d.e.f'])).toBe('malformed');
  });
});
