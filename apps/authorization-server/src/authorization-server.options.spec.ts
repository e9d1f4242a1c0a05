import { describe, expect, it } from 'vitest';
import { resolveAuthorizationServerOptions } from './authorization-server.options';

describe('resolveAuthorizationServerOptions', () => {
  it('derives issuer and admin audience from the public URL without trailing slash', () => {
    const resolved = resolveAuthorizationServerOptions({
      database: { kind: 'pglite' },
      publicUrl: 'http://127.0.0.1:3101/',
      mcpPublicUrl: 'http://127.0.0.1:3000//',
      seed: false,
    });
    expect(resolved.issuer).toBe('http://127.0.0.1:3101/oauth');
    expect(resolved.adminAudience).toBe('http://127.0.0.1:3101/admin/v1');
    expect(resolved.mcpPublicUrl).toBe('http://127.0.0.1:3000');
  });

  it('applies the defaults and keeps retired keys published longer than any token they signed', () => {
    const resolved = resolveAuthorizationServerOptions({
      database: { kind: 'pglite' },
      publicUrl: 'https://auth.example.test',
      mcpPublicUrl: 'https://mcp.example.test',
      seed: false,
    });
    expect(resolved).toMatchObject({
      accessTokenTtlSeconds: 600,
      refreshTokenTtlSeconds: 14 * 24 * 3600,
      keyRotationDays: 30,
      trustProxy: false,
      cimd: { allowedHosts: [] },
    });
    expect(resolved.retiredKeyOverlapSeconds).toBeGreaterThan(3600);
    expect(resolved.keyEncryptionSecret).toBeUndefined();
  });
});
