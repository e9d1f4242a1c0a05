import { DiscardPolicy, headers, type MsgHdrs, type MsgRequest, nanos, type NatsConnection, RetentionPolicy, StorageType } from 'nats';
import { JetStreamStream } from '../transports/jetstream-stream';
import { SubjectNaming } from '../transports/subject-naming';
import { assertPosition, assertStreamKey, DEFAULT_EVENT_LOG_MAX_AGE_MS, EventLog, type EventLogOptions, type LoggedEvent } from './event-log';

/** The header carrying an event's position in its stream. */
const POSITION_HEADER = 'Mcp-Event-Position';

const decoder = new TextDecoder();
const encoder = new TextEncoder();

export interface NatsEventLogOptions extends EventLogOptions {
  /** Prefix of the JetStream stream's name (the bucket prefix), so runs sharing a server stay apart. */
  streamPrefix?: string;
  /** Subject naming of the platform: events are published on `<prefix>.events.<stream>`. */
  naming?: SubjectNaming;
}

/**
 * Distributed event log: one JetStream stream (`<prefix>MCP_EVENTS`, file storage, old events discarded after
 * `maxAgeMs`) holding every event stream, each on its own subject `events.<stream>` with its position in the
 * `Mcp-Event-Position` header, as the writer gave it (the log never numbers). Any replica can replay a stream another
 * one wrote.
 */
export class NatsEventLog extends EventLog {
  private readonly streamName: string;
  private readonly naming: SubjectNaming;
  readonly retentionMs: number;
  /** The JetStream stream, created or updated at first use. */
  private readonly jetStream: JetStreamStream;

  constructor(
    private readonly connection: NatsConnection,
    options: NatsEventLogOptions = {},
  ) {
    super();
    // Stream names cannot hold `.`, `*`, `>`, whitespace or path separators.
    this.streamName = `${options.streamPrefix ?? ''}MCP_EVENTS`.replace(/[^A-Za-z0-9_-]/g, '_');
    this.naming = options.naming ?? new SubjectNaming();
    this.retentionMs = options.maxAgeMs ?? DEFAULT_EVENT_LOG_MAX_AGE_MS;
    this.jetStream = new JetStreamStream(connection, {
      name: this.streamName,
      subjects: [this.subject('>')],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      max_age: nanos(this.retentionMs),
    });
  }

  async append(stream: string, position: number, data: string): Promise<void> {
    assertStreamKey(stream);
    assertPosition(position);
    // Without the JetStream stream the publish would find no responder.
    await this.jetStream.ensure();
    const header = headers();
    header.set(POSITION_HEADER, String(position));
    // Resolves on JetStream's ack, i.e. once stored. Requests leave in call order, so unawaited appends keep it.
    await this.connection.jetstream().publish(this.subject(stream), encoder.encode(data), { headers: header });
  }

  async read(stream: string, after: number, onEvent: (event: LoggedEvent) => void, signal: AbortSignal): Promise<void> {
    assertStreamKey(stream);
    await this.jetStream.ensure();
    if (signal.aborted) return;
    const consumer = await this.connection.jetstream().consumers.get(this.streamName, {
      // A string, not an array: `filter_subjects` needs NATS 2.10. No deliver policy: the ordered consumer starts at
      // stream sequence 1 (everything retained), and the server refuses "all" together with its start sequence.
      filterSubjects: this.subject(stream),
    });
    const messages = await consumer.consume();
    const stop = (): void => void messages.close();
    signal.addEventListener('abort', stop, { once: true });
    try {
      if (signal.aborted) stop();
      for await (const message of messages) {
        const n = position(message.headers);
        if (n > after) onEvent({ n, data: decoder.decode(message.data) });
      }
      const outcome = await messages.closed();
      if (outcome instanceof Error && !signal.aborted) throw outcome;
    } finally {
      signal.removeEventListener('abort', stop);
      if (!signal.aborted) await messages.close();
    }
  }

  async firstAvailable(stream: string): Promise<number | undefined> {
    assertStreamKey(stream);
    const jsm = await this.jetStream.ensure();
    try {
      // The first message at or after sequence 0 on the subject; the server takes `next_by_subj` here (NATS 2.9+),
      // only the client's typings restrict it to direct gets.
      const request = { seq: 0, next_by_subj: this.subject(stream) };
      const message = await jsm.streams.getMessage(this.streamName, request as unknown as MsgRequest);
      return position(message.header);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async lastPosition(stream: string): Promise<number | undefined> {
    assertStreamKey(stream);
    const jsm = await this.jetStream.ensure();
    try {
      const message = await jsm.streams.getMessage(this.streamName, { last_by_subj: this.subject(stream) });
      return position(message.header);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private subject(stream: string): string {
    return this.naming.subject(`events.${stream}`);
  }
}

function position(header: MsgHdrs | undefined): number {
  const n = Number(header?.get(POSITION_HEADER));
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`event log message without a valid ${POSITION_HEADER} header`);
  return n;
}

/** JetStream's answer when no message matches a get (direct gets answer with a 404 status). */
function isNotFound(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string };
  return code === '404' || /no message found/i.test(message ?? '');
}
