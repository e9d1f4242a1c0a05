import { describe, expect, it } from 'vitest';
import { Argon2PasswordHasher } from './password-hasher';

describe('Argon2PasswordHasher', () => {
  // Cheap parameters: the algorithm is what is under test, not its cost.
  const hasher = new Argon2PasswordHasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 });

  it('hashes with argon2id and a random salt', async () => {
    const first = await hasher.hash('correct horse battery');
    const second = await hasher.hash('correct horse battery');
    expect(first).toMatch(/^\$argon2id\$/);
    expect(first).not.toBe(second);
  });

  it('verifies the right password and refuses a wrong one', async () => {
    const hash = await hasher.hash('correct horse battery');
    await expect(hasher.verify(hash, 'correct horse battery')).resolves.toBe(true);
    await expect(hasher.verify(hash, 'correct horse batterz')).resolves.toBe(false);
  });

  it('answers false, not an error, for a malformed hash', async () => {
    await expect(hasher.verify('not-a-hash', 'whatever password')).resolves.toBe(false);
  });
});
