import { describe, expect, it } from 'vitest';
import { grantScopes } from './scope-grant';

describe(grantScopes, () => {
  const resourceScopes = ['mcp', 'demo:crypto', 'demo:files'];

  it('grants the requested scopes the resource knows and the roles allow', () => {
    expect(grantScopes({ requested: ['mcp', 'demo:crypto'], resourceScopes, allowed: ['mcp', 'demo'] })).toEqual({
      granted: ['mcp', 'demo:crypto'],
      refused: [],
    });
  });

  it('honours the hierarchy of the roles (a broader allowed scope covers a narrower one)', () => {
    expect(grantScopes({ requested: ['demo:files'], resourceScopes, allowed: ['demo'] }).granted).toEqual(['demo:files']);
    expect(grantScopes({ requested: ['demo:files'], resourceScopes, allowed: ['demo:crypto'] }).granted).toEqual([]);
  });

  it('allows every scope of the resource for a role with *', () => {
    expect(grantScopes({ requested: ['mcp', 'demo:files'], resourceScopes, allowed: ['*'] }).granted).toEqual(['mcp', 'demo:files']);
  });

  it('refuses scopes the resource does not know, even when the roles allow everything', () => {
    expect(grantScopes({ requested: ['mcp', 'other', 'demo'], resourceScopes, allowed: ['*'] })).toEqual({ granted: ['mcp'], refused: ['other', 'demo'] });
  });

  it('refuses what the roles do not allow', () => {
    expect(grantScopes({ requested: ['mcp', 'demo:crypto'], resourceScopes, allowed: ['mcp'] })).toEqual({ granted: ['mcp'], refused: ['demo:crypto'] });
    expect(grantScopes({ requested: ['mcp'], resourceScopes, allowed: [] })).toEqual({ granted: [], refused: ['mcp'] });
  });

  it('applies the client limit with the hierarchy', () => {
    expect(grantScopes({ requested: ['mcp', 'demo:crypto'], resourceScopes, allowed: ['*'], clientScope: ['mcp'] }).granted).toEqual(['mcp']);
    expect(grantScopes({ requested: ['mcp', 'demo:crypto'], resourceScopes, allowed: ['*'], clientScope: ['mcp', 'demo'] }).granted).toEqual([
      'mcp',
      'demo:crypto',
    ]);
  });

  it('counts each requested scope once', () => {
    expect(grantScopes({ requested: ['mcp', 'mcp'], resourceScopes, allowed: ['mcp'] })).toEqual({ granted: ['mcp'], refused: [] });
  });
});
