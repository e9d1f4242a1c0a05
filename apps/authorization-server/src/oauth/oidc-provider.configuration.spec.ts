import { describe, expect, it } from 'vitest';
import { cookieNames, defaultScopeFor, issuerPath } from './oidc-provider.configuration';

describe(cookieNames, () => {
  it('prefixes the cookies over https: __Host- for the path-wide session, __Secure- for the path-scoped ones (S-151)', () => {
    expect(cookieNames(true)).toEqual({ session: '__Host-oauth_session', interaction: '__Secure-oauth_interaction', resume: '__Secure-oauth_resume' });
  });

  it('uses plain names over http, where the prefixes (which need Secure) would be refused', () => {
    expect(Object.values(cookieNames(false)).every((name) => !name.startsWith('__'))).toBe(true);
  });
});

describe(issuerPath, () => {
  it('is the issuer path without trailing slash', () => {
    expect(issuerPath({ issuer: 'https://auth.example.com/oauth' })).toBe('/oauth');
    expect(issuerPath({ issuer: 'https://example.com/auth/oauth/' })).toBe('/auth/oauth');
  });
});

describe(defaultScopeFor, () => {
  it('is the baseline scope for MCP servers and admin for the admin API', () => {
    expect(defaultScopeFor({ kind: 'mcp' })).toBe('mcp');
    expect(defaultScopeFor({ kind: 'admin' })).toBe('admin');
  });
});
