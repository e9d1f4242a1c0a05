import { hash, type Options, verify } from '@node-rs/argon2';

/**
 * Turns passwords into one-way hashes and checks them. Injected, so unit tests can use cheap
 * parameters or a fake instead of spending real memory and time per hash.
 */
export abstract class PasswordHasher {
  /** A self-describing hash (PHC string) of the password. */
  abstract hash(password: string): Promise<string>;
  /** Whether the password matches the hash; `false` (never an error) for a malformed hash. */
  abstract verify(passwordHash: string, password: string): Promise<boolean>;
}

/**
 * OWASP's argon2id baseline: 19 MiB of memory, 2 passes, 1 lane. `@node-rs/argon2`'s default
 * algorithm is argon2id (its `Algorithm` enum is a `const enum`, not importable under isolated modules).
 */
export const DEFAULT_ARGON2_OPTIONS: Options = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/** argon2id, memory-hard, through a prebuilt native binding. */
export class Argon2PasswordHasher extends PasswordHasher {
  constructor(private readonly options: Options = DEFAULT_ARGON2_OPTIONS) {
    super();
  }

  hash(password: string): Promise<string> {
    return hash(password, this.options);
  }

  async verify(passwordHash: string, password: string): Promise<boolean> {
    try {
      return await verify(passwordHash, password);
    } catch {
      return false;
    }
  }
}
