import { describe, expect, it } from 'vitest';
import { ConfigError, httpEnv, loadEnv, natsEnv } from './index';

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
});
