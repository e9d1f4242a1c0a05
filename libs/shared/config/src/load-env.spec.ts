import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  BOOTSTRAP_ADMIN_KEYS,
  bootstrapAdminEnv,
  ConfigError,
  httpEnv,
  httpServerSettings,
  loadDotEnvFile,
  loadEnv,
  natsEnv,
  StartupError,
  trustProxyEnv,
} from './index';

describe('loadEnv', () => {
  it('fills defaults for absent keys', () => {
    expect(loadEnv({ ...natsEnv, ...httpEnv(3000) }, {})).toEqual({
      NATS_URL: 'nats://127.0.0.1:4222',
      NATS_BUCKET_PREFIX: '',
      NATS_SUBJECT_PREFIX: '',
      EVENT_LOG_RETENTION_SECONDS: 900,
      HOST: '127.0.0.1',
      PORT: 3000,
      HTTP_HEADERS_TIMEOUT_SECONDS: 10,
      HTTP_REQUEST_TIMEOUT_SECONDS: 30,
      HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: 65,
      SHUTDOWN_GRACE_SECONDS: 10,
    });
  });

  it('lists every invalid key at once', () => {
    let error: unknown;
    try {
      loadEnv({ ...httpEnv(3000), NATS_URL: natsEnv.NATS_URL }, { PORT: 'eighty', NATS_URL: '' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toHaveLength(2);
    expect((error as ConfigError).message).toMatch(/PORT/);
    expect((error as ConfigError).message).toMatch(/NATS_URL/);
  });

  it('takes a NATS subject prefix of one token and refuses dots, wildcards and spaces', () => {
    expect(loadEnv(natsEnv, { NATS_SUBJECT_PREFIX: 'staging_2-a' })).toMatchObject({ NATS_SUBJECT_PREFIX: 'staging_2-a' });
    for (const bad of ['a.b', '>', '*', 'with space']) {
      expect(() => loadEnv(natsEnv, { NATS_SUBJECT_PREFIX: bad }), bad).toThrow(/NATS_SUBJECT_PREFIX/);
    }
  });

  it('refuses one key of a group without the others, naming every key, beside the other bad keys', () => {
    let error: unknown;
    try {
      loadEnv({ ...httpEnv(3000), ...bootstrapAdminEnv }, { PORT: 'eighty', ADMIN_USERNAME: 'root' }, { together: [BOOTSTRAP_ADMIN_KEYS] });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toBeInstanceOf(StartupError);
    expect((error as ConfigError).issues).toEqual([
      expect.stringMatching(/^PORT: /),
      'ADMIN_USERNAME, ADMIN_PASSWORD: set both or neither (only ADMIN_USERNAME is set)',
    ]);
  });

  it('takes a group set together, or left out (empty values are unset)', () => {
    const options = { together: [BOOTSTRAP_ADMIN_KEYS] };
    expect(loadEnv(bootstrapAdminEnv, { ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'long-enough-secret' }, options)).toEqual({
      ADMIN_USERNAME: 'root',
      ADMIN_PASSWORD: 'long-enough-secret',
    });
    expect(loadEnv(bootstrapAdminEnv, { ADMIN_USERNAME: '', ADMIN_PASSWORD: '' }, options)).toEqual({});
  });
});

describe('loadDotEnvFile', () => {
  it('adds the keys of a .env file the environment does not set, and answers false without a file', () => {
    const folder = mkdtempSync(join(tmpdir(), 'dot-env-'));
    const file = join(folder, '.env');
    writeFileSync(file, '# comment\nDOT_ENV_SPEC_FROM_FILE=file\nDOT_ENV_SPEC_BOTH="from file"\n');
    process.env['DOT_ENV_SPEC_BOTH'] = 'environment';
    try {
      expect(loadDotEnvFile(file)).toBe(true);
      expect(process.env['DOT_ENV_SPEC_FROM_FILE']).toBe('file');
      expect(process.env['DOT_ENV_SPEC_BOTH']).toBe('environment');
      expect(loadDotEnvFile(join(folder, 'missing.env'))).toBe(false);
    } finally {
      delete process.env['DOT_ENV_SPEC_FROM_FILE'];
      delete process.env['DOT_ENV_SPEC_BOTH'];
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('httpServerSettings', () => {
  it('turns the seconds into the milliseconds runService takes', () => {
    expect(httpServerSettings(loadEnv(httpEnv(3000), { HTTP_HEADERS_TIMEOUT_SECONDS: '2', SHUTDOWN_GRACE_SECONDS: '0' }))).toEqual({
      httpTimeouts: { headersTimeoutMs: 2_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 65_000 },
      shutdownGraceMs: 0,
    });
  });

  it('refuses a header timeout longer than the request timeout, naming both keys', () => {
    expect(() => httpServerSettings(loadEnv(httpEnv(3000), { HTTP_HEADERS_TIMEOUT_SECONDS: '40' }))).toThrow(
      /HTTP_HEADERS_TIMEOUT_SECONDS: 40 exceeds HTTP_REQUEST_TIMEOUT_SECONDS \(30\)/,
    );
  });
});

describe('trustProxyEnv', () => {
  const parse = (value?: string) => loadEnv({ TRUST_PROXY: trustProxyEnv }, value === undefined ? {} : { TRUST_PROXY: value }).TRUST_PROXY;

  it('trusts nobody by default, and takes a boolean or a list of proxies', () => {
    expect(parse()).toBe(false);
    expect(parse('false')).toBe(false);
    expect(parse('true')).toBe(true);
    expect(parse('1')).toBe(true);
    expect(parse('10.0.0.0/8, 192.0.2.7,::1')).toEqual(['10.0.0.0/8', '192.0.2.7', '::1']);
  });

  it('refuses what is neither a boolean nor addresses or ranges (no hop counts: a direct client could forge enough hops)', () => {
    expect(() => parse('yes please')).toThrow(/TRUST_PROXY: not an address or CIDR range: yes please/);
    expect(z.object({ TRUST_PROXY: trustProxyEnv }).safeParse({ TRUST_PROXY: 'proxy.example.com' }).success).toBe(false);
  });
});
