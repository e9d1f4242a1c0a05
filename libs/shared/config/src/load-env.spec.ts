import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BOOTSTRAP_ADMIN_KEYS, bootstrapAdminEnv, ConfigError, httpEnv, loadDotEnvFile, loadEnv, natsEnv, StartupError } from './index';

describe('loadEnv', () => {
  it('fills defaults for absent keys', () => {
    expect(loadEnv({ ...natsEnv, ...httpEnv(3000) }, {})).toEqual({ NATS_URL: 'nats://127.0.0.1:4222', NATS_BUCKET_PREFIX: '', NATS_SUBJECT_PREFIX: '', EVENT_LOG_RETENTION_SECONDS: 900, HOST: '127.0.0.1', PORT: 3000 });
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
    expect((error as ConfigError).issues).toEqual([expect.stringMatching(/^PORT: /), 'ADMIN_USERNAME, ADMIN_PASSWORD: set both or neither (only ADMIN_USERNAME is set)']);
  });

  it('takes a group set together, or left out (empty values are unset)', () => {
    const options = { together: [BOOTSTRAP_ADMIN_KEYS] };
    expect(loadEnv(bootstrapAdminEnv, { ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'long-enough-secret' }, options)).toEqual({ ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'long-enough-secret' });
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
