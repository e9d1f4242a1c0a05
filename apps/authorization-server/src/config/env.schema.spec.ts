import { describe, expect, it } from 'vitest';
import { ConfigError } from '@mcp-platform/shared-config';
import { defaultPublicUrl, loadAuthorizationServerEnv } from './env.schema';

describe('loadAuthorizationServerEnv', () => {
  it('derives the public URL from HOST and PORT and applies the defaults', () => {
    const env = loadAuthorizationServerEnv({ PORT: '4100' });
    expect(env).toMatchObject({
      AUTH_PUBLIC_URL: 'http://127.0.0.1:4100',
      MCP_PUBLIC_URL: 'http://127.0.0.1:3000',
      SEED: true,
      TRUST_PROXY: false,
      CIMD_ALLOWED_HOSTS: [],
    });
    expect(env.DEMO_USER_PASSWORD).toBeUndefined();
  });

  it('treats empty values of optional keys as unset', () => {
    const env = loadAuthorizationServerEnv({ AUTH_PUBLIC_URL: '', DEMO_USER_PASSWORD: '', ADMIN_USERNAME: '', ADMIN_PASSWORD: '' });
    expect(env.AUTH_PUBLIC_URL).toBe('http://127.0.0.1:3101');
    expect(env.DEMO_USER_PASSWORD).toBeUndefined();
  });

  it('refuses an admin username without password, and short passwords', () => {
    expect(() => loadAuthorizationServerEnv({ ADMIN_USERNAME: 'root' })).toThrow(ConfigError);
    expect(() => loadAuthorizationServerEnv({ DEMO_USER_PASSWORD: 'short' })).toThrow(/DEMO_USER_PASSWORD: at least 12 characters/);
  });

  it('reads the CIMD host list', () => {
    expect(loadAuthorizationServerEnv({ CIMD_ALLOWED_HOSTS: 'localhost, 127.0.0.1' }).CIMD_ALLOWED_HOSTS).toEqual(['localhost', '127.0.0.1']);
  });
});

describe('defaultPublicUrl', () => {
  it('uses loopback for wildcard addresses and brackets IPv6', () => {
    expect(defaultPublicUrl('0.0.0.0', 3101)).toBe('http://127.0.0.1:3101');
    expect(defaultPublicUrl('::1', 3101)).toBe('http://[::1]:3101');
  });
});
