/** One event of a stream, with its position in that stream. */
export interface LoggedEvent {
  /** The event's position in its stream, as its writer appended it. */
  n: number;
  data: string;
}

export interface EventLogOptions {
  /** Events are discarded this long after they were appended (default 15 minutes). */
  maxAgeMs?: number;
}

export const DEFAULT_EVENT_LOG_MAX_AGE_MS = 15 * 60_000;

/** A stream key: 1 to 4 segments of `[A-Za-z0-9_-]{1,64}`, joined by `.` (they become NATS subject tokens). */
const STREAM_KEY = /^[A-Za-z0-9_-]{1,64}(\.[A-Za-z0-9_-]{1,64}){0,3}$/;

/** Throws unless `stream` is a valid stream key (see {@link EventLog}). */
export function assertStreamKey(stream: string): void {
  if (!STREAM_KEY.test(stream)) {
    throw new Error(`invalid event stream key ${JSON.stringify(stream)}: 1 to 4 segments of letters, digits, _ and - (at most 64 each), joined by "."`);
  }
}

/** Throws unless `position` is a valid event position: a safe integer of at least 1. */
export function assertPosition(position: number): void {
  if (!Number.isSafeInteger(position) || position < 1) {
    throw new Error(`invalid event position ${String(position)}: a safe integer of at least 1`);
  }
}

/**
 * A durable, replayable log of events per stream (NATS JetStream in distributed mode, arrays in embedded
 * mode), so a stream's events can be written before they are sent and replayed to a client that reconnects
 * elsewhere. Inject it as `EventLog`.
 *
 * Positions are the writer's: each stream has one writer (the process that produces it, e.g. the tool executor
 * for a call's SSE stream, the broker replica holding a GET stream), which keeps its own counter for the life of
 * the stream and appends at strictly increasing positions. The log stores the position it is given and never
 * numbers or renumbers, so a position a client saw (its `Last-Event-ID`, spec S-89/S-90) never comes to name
 * another event, even after retention dropped every event of the stream. {@link lastPosition} tells where a
 * stream stands only while some of its events are retained. Events older than `maxAgeMs` are discarded.
 */
export abstract class EventLog {
  /** How long events are kept after they were appended, in milliseconds (`maxAgeMs`). */
  abstract readonly retentionMs: number;
  /**
   * Stores one event of `stream` at `position`; resolves once it is stored. `position` is a safe integer of at
   * least 1, above every position the writer appended to the stream before. The log rejects an invalid stream key
   * or a position that is not an integer of at least 1, but does not check the increase (it cannot across
   * processes: two writers of one stream would interleave their positions).
   * Appends one process issues without waiting are stored in call order.
   */
  abstract append(stream: string, position: number, data: string): Promise<void>;
  /**
   * Calls `onEvent` for every event of `stream` with a position above `after`, in append order, then for every
   * later append, until `signal` aborts; resolves then, or rejects if the log breaks. It never reports events
   * already discarded by retention: compare {@link firstAvailable} with `after` to detect such a gap.
   */
  abstract read(stream: string, after: number, onEvent: (event: LoggedEvent) => void, signal: AbortSignal): Promise<void>;
  /** The position of the oldest event of `stream` still retained, or `undefined` when it has none. */
  abstract firstAvailable(stream: string): Promise<number | undefined>;
  /** The position of the newest event of `stream` still retained, or `undefined` when it has none. */
  abstract lastPosition(stream: string): Promise<number | undefined>;
}
