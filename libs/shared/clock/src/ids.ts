/**
 * New identifiers (rows, calls, tasks, sessions), injected like the clock so tests can name what they
 * will find: `RandomIds` (UUID v4) in the apps, `SequentialIds` in tests.
 */
export abstract class IdSource {
  /** A new identifier, never returned before. */
  abstract newId(): string;
}

/** Random UUIDs (v4) from the platform's CSPRNG. */
export class RandomIds extends IdSource {
  newId(): string {
    return globalThis.crypto.randomUUID();
  }
}

/** `<prefix>-1`, `<prefix>-2`, …: predictable ids for tests. */
export class SequentialIds extends IdSource {
  private next = 1;

  constructor(private readonly prefix = 'id') {
    super();
  }

  newId(): string {
    return `${this.prefix}-${this.next++}`;
  }
}
