import { describe, expect, it } from 'vitest';
import { bearerChallenge, parseAuthChallenges } from './bearer-challenge';

describe(parseAuthChallenges, () => {
  it('splits several challenges and reads quoted and token params', () => {
    expect(parseAuthChallenges('Basic realm="a, b", Bearer error=invalid_token, scope="mcp demo:crypto"')).toEqual([
      { scheme: 'Basic', params: { realm: 'a, b' } },
      { scheme: 'Bearer', params: { error: 'invalid_token', scope: 'mcp demo:crypto' } },
    ]);
  });

  it('unescapes quoted-pairs and reads a token68', () => {
    expect(parseAuthChallenges('Bearer error_description="say \\"no\\"", Negotiate abc123==')).toEqual([
      { scheme: 'Bearer', params: { error_description: 'say "no"' } },
      { scheme: 'Negotiate', params: {}, token68: 'abc123==' },
    ]);
  });

  it('reads a bare scheme and an empty header', () => {
    expect(parseAuthChallenges('Bearer')).toEqual([{ scheme: 'Bearer', params: {} }]);
    expect(parseAuthChallenges(undefined)).toEqual([]);
    expect(parseAuthChallenges('')).toEqual([]);
  });
});

describe(bearerChallenge, () => {
  const header =
    'Bearer resource_metadata="http://127.0.0.1:3000/.well-known/oauth-protected-resource/demo/default/mcp", error="insufficient_scope", scope="mcp demo:crypto", error_description="needs demo:crypto"';

  it('names the MCP parameters of a 403 step-up challenge (S-142)', () => {
    expect(bearerChallenge(header)).toMatchObject({
      scheme: 'Bearer',
      error: 'insufficient_scope',
      scope: 'mcp demo:crypto',
      errorDescription: 'needs demo:crypto',
      resourceMetadata: 'http://127.0.0.1:3000/.well-known/oauth-protected-resource/demo/default/mcp',
    });
  });

  it('reads the header from a fetch Response and from raw node headers', () => {
    expect(bearerChallenge(new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer scope="mcp"' } }))?.scope).toBe('mcp');
    expect(bearerChallenge({ headers: { 'www-authenticate': 'bearer realm=x' } })?.realm).toBe('x');
  });

  it('is undefined without a Bearer challenge', () => {
    expect(bearerChallenge('Basic realm="x"')).toBeUndefined();
    expect(bearerChallenge({ headers: {} })).toBeUndefined();
  });
});
