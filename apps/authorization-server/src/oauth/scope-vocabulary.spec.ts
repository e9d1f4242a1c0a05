import { describe, expect, it } from 'vitest';
import { ScopeVocabulary } from './scope-vocabulary';

describe(ScopeVocabulary, () => {
  const vocabulary = new ScopeVocabulary(['openid', 'offline_access']);

  it('lists only the OIDC scopes', () => {
    expect([...vocabulary]).toEqual(['openid', 'offline_access']);
  });

  it('accepts any well-formed scope token through has()', () => {
    expect(vocabulary.has('mcp')).toBe(true);
    expect(vocabulary.has('demo:crypto')).toBe(true);
    expect(vocabulary.has('bad"scope')).toBe(false);
  });

  it('keeps the plain membership for Set.prototype.has (what oidc-provider uses for its own scope checks)', () => {
    expect(Set.prototype.has.call(vocabulary, 'mcp')).toBe(false);
    expect(Set.prototype.has.call(vocabulary, 'openid')).toBe(true);
  });
});
