import { describe, expect, it } from 'vitest';
import { formatScopes, missingScopes, parseScopes, scopeCovers } from './scopes';

describe('scopes', () => {
  describe(parseScopes.name, () => {
    it('splits on spaces, drops empty tokens and repeats', () => {
      expect(parseScopes(' mcp  demo:write mcp ')).toEqual(['mcp', 'demo:write']);
    });

    it('reads nothing from an absent value', () => {
      expect(parseScopes(undefined)).toEqual([]);
      expect(parseScopes('')).toEqual([]);
    });
  });

  describe(formatScopes.name, () => {
    it('joins each scope once', () => {
      expect(formatScopes(['mcp', 'a', 'mcp'])).toBe('mcp a');
    });
  });

  describe(scopeCovers.name, () => {
    it('covers an equal scope and the narrower scopes below it (S-144)', () => {
      expect(scopeCovers('files', 'files')).toBe(true);
      expect(scopeCovers('files', 'files:read')).toBe(true);
      expect(scopeCovers('files:read', 'files:read:all')).toBe(true);
    });

    it('does not cover a broader scope, a sibling or a mere string prefix', () => {
      expect(scopeCovers('files:read', 'files')).toBe(false);
      expect(scopeCovers('files:read', 'files:write')).toBe(false);
      expect(scopeCovers('file', 'files:read')).toBe(false);
    });
  });

  describe(missingScopes.name, () => {
    it('lists the required scopes no granted scope covers', () => {
      expect(missingScopes(['mcp', 'files'], ['mcp', 'files:read', 'admin'])).toEqual(['admin']);
      expect(missingScopes([], [])).toEqual([]);
    });
  });
});
