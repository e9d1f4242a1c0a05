import { describe, expect, it } from 'vitest';
import { defaultAllowLists } from '../session-broker.options';
import { loadSessionBrokerEnv } from './env.schema';

describe('loadSessionBrokerEnv', () => {
  it('fills the defaults', () => {
    expect(loadSessionBrokerEnv({})).toMatchObject({
      HOST: '127.0.0.1',
      PORT: 3000,
      BODY_LIMIT_BYTES: 4 * 1024 * 1024,
      SESSION_TTL_SECONDS: 86_400,
      ALLOWED_HOSTS: [],
      ALLOWED_ORIGINS: [],
      AUTH_ISSUER: 'http://127.0.0.1:3101/oauth',
      DEV_ANONYMOUS_TENANTS: [],
      REQUEST_STATE_KEYS: [],
      TASK_OPERATIONS_PER_MINUTE: 6_000,
    });
  });

  it('reads the task operation limit, 0 turning it off, and refuses a negative or fractional one', () => {
    expect(loadSessionBrokerEnv({ TASK_OPERATIONS_PER_MINUTE: '120' }).TASK_OPERATIONS_PER_MINUTE).toBe(120);
    expect(loadSessionBrokerEnv({ TASK_OPERATIONS_PER_MINUTE: '0' }).TASK_OPERATIONS_PER_MINUTE).toBe(0);
    expect(() => loadSessionBrokerEnv({ TASK_OPERATIONS_PER_MINUTE: '-1' })).toThrow(/TASK_OPERATIONS_PER_MINUTE/);
    expect(() => loadSessionBrokerEnv({ TASK_OPERATIONS_PER_MINUTE: '1.5' })).toThrow(/TASK_OPERATIONS_PER_MINUTE/);
  });

  it('reads the request state keys, first one first', () => {
    const keys = [`new:${'A'.repeat(43)}`, `old:${'B'.repeat(43)}`];
    expect(loadSessionBrokerEnv({ REQUEST_STATE_KEYS: keys.join(', ') }).REQUEST_STATE_KEYS).toEqual(keys);
  });

  it('refuses a malformed request state key without echoing it', () => {
    const secret = 'c2hvcnQtc2VjcmV0';
    expect(() => loadSessionBrokerEnv({ REQUEST_STATE_KEYS: `k1:${secret}` })).toThrow(/REQUEST_STATE_KEYS/);
    expect(() => loadSessionBrokerEnv({ REQUEST_STATE_KEYS: `k1:${secret}` })).not.toThrow(new RegExp(secret));
    expect(() => loadSessionBrokerEnv({ REQUEST_STATE_KEYS: `k1:${'A'.repeat(43)},k1:${'B'.repeat(43)}` })).toThrow(/used twice/);
  });

  it('reads the issuer and the development list of anonymous tenants', () => {
    expect(loadSessionBrokerEnv({ AUTH_ISSUER: 'https://auth.example.com/oauth', DEV_ANONYMOUS_TENANTS: 'demo, acme' })).toMatchObject({
      AUTH_ISSUER: 'https://auth.example.com/oauth',
      DEV_ANONYMOUS_TENANTS: ['demo', 'acme'],
    });
  });

  it('refuses an issuer that is not a URL', () => {
    expect(() => loadSessionBrokerEnv({ AUTH_ISSUER: 'not a url' })).toThrow(/AUTH_ISSUER/);
  });

  it('splits comma lists', () => {
    expect(loadSessionBrokerEnv({ ALLOWED_HOSTS: 'a:1, b:*', ALLOWED_ORIGINS: 'https://a' })).toMatchObject({
      ALLOWED_HOSTS: ['a:1', 'b:*'],
      ALLOWED_ORIGINS: ['https://a'],
    });
  });
});

describe('defaultAllowLists', () => {
  it('allows the public URL and the loopback names at the port', () => {
    expect(defaultAllowLists('http://127.0.0.1:3000', 3000)).toEqual({
      allowedHosts: ['127.0.0.1:3000', 'localhost:3000', '[::1]:3000'],
      allowedOrigins: ['http://127.0.0.1:3000', 'http://localhost:3000', 'http://[::1]:3000'],
    });
  });

  it('adds a proxy host without port', () => {
    const lists = defaultAllowLists('https://mcp.example.com', 3000);
    expect(lists.allowedHosts).toContain('mcp.example.com:443');
    expect(lists.allowedHosts).toContain('mcp.example.com');
    expect(lists.allowedOrigins).toContain('https://mcp.example.com');
  });
});
