import { assertPosition, assertStreamKey, DEFAULT_EVENT_LOG_MAX_AGE_MS, EventLog, type EventLogOptions, type LoggedEvent } from './event-log';

interface StoredEvent extends LoggedEvent {
  appendedAt: number;
}

interface MemoryStream {
  /** Retained events, in append order. */
  events: StoredEvent[];
  readers: Set<(event: LoggedEvent) => void>;
}

export interface MemoryEventLogOptions extends EventLogOptions {
  /** The clock retention is measured with (tests pass a fake one). */
  now?: () => number;
}

/**
 * Embedded-mode event log: arrays per stream, shared by everything in the process, with the JetStream log's
 * semantics (the writer's positions stored as given, replay then live tail, retention by age).
 */
export class MemoryEventLog extends EventLog {
  private readonly streams = new Map<string, MemoryStream>();
  readonly retentionMs: number;
  private readonly now: () => number;
  /** When every stream is next swept for expired events, so idle streams do not pile up. */
  private nextSweepAt: number;

  constructor(options: MemoryEventLogOptions = {}) {
    super();
    this.retentionMs = options.maxAgeMs ?? DEFAULT_EVENT_LOG_MAX_AGE_MS;
    this.now = options.now ?? Date.now;
    this.nextSweepAt = this.now() + this.retentionMs;
  }

  async append(stream: string, position: number, data: string): Promise<void> {
    assertStreamKey(stream);
    assertPosition(position);
    this.sweep();
    const entry = this.entry(stream);
    entry.events.push({ n: position, data, appendedAt: this.now() });
    const delivered: LoggedEvent = { n: position, data };
    // Asynchronous like the network: the writer never runs a reader's code on its own stack.
    for (const reader of entry.readers) queueMicrotask(() => reader(delivered));
  }

  async read(stream: string, after: number, onEvent: (event: LoggedEvent) => void, signal: AbortSignal): Promise<void> {
    assertStreamKey(stream);
    if (signal.aborted) return;
    const entry = this.entry(stream);
    // Replay and subscribe in one synchronous step, so no append falls between them.
    for (const event of entry.events) if (event.n > after) onEvent({ n: event.n, data: event.data });
    let fail: (error: unknown) => void = () => undefined;
    const reader = (event: LoggedEvent): void => {
      if (signal.aborted || event.n <= after) return;
      try {
        onEvent(event);
      } catch (error) {
        fail(error);
      }
    };
    const readers = entry.readers;
    readers.add(reader);
    try {
      await new Promise<void>((resolve, reject) => {
        fail = reject;
        // The reader may have stopped during the replay, from its own `onEvent`.
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
    } finally {
      readers.delete(reader);
    }
  }

  async firstAvailable(stream: string): Promise<number | undefined> {
    assertStreamKey(stream);
    return this.retained(stream)?.events[0]?.n;
  }

  async lastPosition(stream: string): Promise<number | undefined> {
    assertStreamKey(stream);
    return this.retained(stream)?.events.at(-1)?.n;
  }

  /** The stream's retained entry, created when it has none. */
  private entry(stream: string): MemoryStream {
    let entry = this.retained(stream);
    if (!entry) {
      entry = { events: [], readers: new Set() };
      this.streams.set(stream, entry);
    }
    return entry;
  }

  /** The stream after dropping its expired events; forgotten when it has no events and no readers left. */
  private retained(stream: string): MemoryStream | undefined {
    const entry = this.streams.get(stream);
    if (!entry) return undefined;
    const cutoff = this.now() - this.retentionMs;
    const firstKept = entry.events.findIndex((event) => event.appendedAt > cutoff);
    if (firstKept === -1) entry.events.length = 0;
    else if (firstKept > 0) entry.events.splice(0, firstKept);
    if (entry.events.length || entry.readers.size) return entry;
    this.streams.delete(stream);
    return undefined;
  }

  private sweep(): void {
    if (this.now() < this.nextSweepAt) return;
    this.nextSweepAt = this.now() + this.retentionMs;
    for (const stream of [...this.streams.keys()]) this.retained(stream);
  }
}
