/** One event of a stream, with its position in that stream. */
export interface LoggedEvent {
  /** The event's position in its stream: 1, 2, 3… in append order. */
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

/**
 * A durable, replayable log of events per stream (NATS JetStream in distributed mode, arrays in embedded
 * mode), so a stream's events can be written before they are sent and replayed to a client that reconnects
 * elsewhere. Inject it as `EventLog`.
 *
 * Positions are assigned by the writer: one process at a time writes a stream (concurrent writers to one
 * stream are not supported and would repeat positions). A process that continues a stream another one wrote
 * reads the stream's last position from the log on its first append, so numbering continues. Events older
 * than `maxAgeMs` are discarded; once every event of a stream is gone, its numbering starts again at 1.
 */
export abstract class EventLog {
  /** Appends one event to `stream`; resolves its position once it is stored. */
  abstract append(stream: string, data: string): Promise<number>;
  /**
   * Calls `onEvent` for every event of `stream` with a position above `after`, in order, then for every later
   * append, until `signal` aborts; resolves then, or rejects if the log breaks. It never reports events
   * already discarded by retention: compare {@link firstAvailable} with `after` to detect such a gap.
   */
  abstract read(stream: string, after: number, onEvent: (event: LoggedEvent) => void, signal: AbortSignal): Promise<void>;
  /** The position of the oldest event of `stream` still retained, or `undefined` when it has none. */
  abstract firstAvailable(stream: string): Promise<number | undefined>;
}
