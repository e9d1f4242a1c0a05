import { assertStreamKey, DEFAULT_EVENT_LOG_MAX_AGE_MS, EventLog, type EventLogOptions, type LoggedEvent } from './event-log';

interface StoredEvent extends LoggedEvent {
  appendedAt: number;
}

interface MemoryStream {
  /** Retained events, oldest first. */
  events: StoredEvent[];
  /** The last position given out (kept while the stream has events or readers). */
  last: number;
  readers: Set<(event: LoggedEvent) => void>;
}

export interface MemoryEventLogOptions extends EventLogOptions {
  /** The clock retention is measured with (tests pass a fake one). */
  now?: () => number;
}

/**
 * Embedded-mode event log: arrays per stream, shared by everything in the process, with the JetStream log's
 * semantics (positions, replay then live tail, retention by age).
 */
export class MemoryEventLog extends EventLog {
  private readonly streams = new Map<string, MemoryStream>();
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  /** When every stream is next swept for expired events, so idle streams do not pile up. */
  private nextSweepAt: number;

  constructor(options: MemoryEventLogOptions = {}) {
    super();
    this.maxAgeMs = options.maxAgeMs ?? DEFAULT_EVENT_LOG_MAX_AGE_MS;
    this.now = options.now ?? Date.now;
    this.nextSweepAt = this.now() + this.maxAgeMs;
  }

  async append(stream: string, data: string): Promise<number> {
    assertStreamKey(stream);
    this.sweep();
    let entry = this.retained(stream);
    if (!entry) {
      entry = { events: [], last: 0, readers: new Set() };
      this.streams.set(stream, entry);
    }
    const event: StoredEvent = { n: ++entry.last, data, appendedAt: this.now() };
    entry.events.push(event);
    const delivered: LoggedEvent = { n: event.n, data };
    // Asynchronous like the network: the writer never runs a reader's code on its own stack.
    for (const reader of entry.readers) queueMicrotask(() => reader(delivered));
    return event.n;
  }

  async read(stream: string, after: number, onEvent: (event: LoggedEvent) => void, signal: AbortSignal): Promise<void> {
    assertStreamKey(stream);
    if (signal.aborted) return;
    let entry = this.retained(stream);
    if (!entry) {
      entry = { events: [], last: 0, readers: new Set() };
      this.streams.set(stream, entry);
    }
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
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    } finally {
      readers.delete(reader);
    }
  }

  async firstAvailable(stream: string): Promise<number | undefined> {
    assertStreamKey(stream);
    return this.retained(stream)?.events[0]?.n;
  }

  /** The stream after dropping its expired events; forgotten (numbering restarts) when nothing is left. */
  private retained(stream: string): MemoryStream | undefined {
    const entry = this.streams.get(stream);
    if (!entry) return undefined;
    const cutoff = this.now() - this.maxAgeMs;
    const firstKept = entry.events.findIndex((event) => event.appendedAt > cutoff);
    if (firstKept === -1) entry.events.length = 0;
    else if (firstKept > 0) entry.events.splice(0, firstKept);
    if (entry.events.length || entry.readers.size) return entry;
    this.streams.delete(stream);
    return undefined;
  }

  private sweep(): void {
    if (this.now() < this.nextSweepAt) return;
    this.nextSweepAt = this.now() + this.maxAgeMs;
    for (const stream of [...this.streams.keys()]) this.retained(stream);
  }
}
