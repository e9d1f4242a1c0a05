import { describe, expect, it } from 'vitest';
import { formatScopes, missingScopes, parseScopes, REQUIRED_SCOPES_META_KEY, scopeCovers } from './scopes';

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

  describe('REQUIRED_SCOPES_META_KEY', () => {
    it('is a valid _meta key under a prefix MCP does not reserve (S-26)', () => {
      const [prefix = '', name = ''] = REQUIRED_SCOPES_META_KEY.split('/');
      const labels = prefix.split('.');
      expect(labels.every((label) => /^[A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?$/.test(label))).toBe(true);
      expect(name).toMatch(/^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/);
      // 2025-11-25: a second label `mcp` or `modelcontextprotocol` is reserved; 2025-06-18: any label but the last.
      expect(labels.slice(0, -1).some((label) => label === 'mcp' || label === 'modelcontextprotocol')).toBe(false);
    });
  });
});
