import type { JetStreamManager, NatsConnection, StreamConfig } from 'nats';

/** JetStream's answer when a stream name is taken with another configuration (we update it then). */
const STREAM_IN_USE = 10058;

/** The `err_code` of a JetStream API error, if it is one. */
export function apiErrorCode(error: unknown): number | undefined {
  return (error as { api_error?: { err_code?: number } }).api_error?.err_code;
}

/**
 * One JetStream stream a port keeps its data in (the event log, the work queue): created at first use,
 * or brought to this configuration when it exists with another (a process started with new settings
 * updates it for everyone). A failed creation is retried by the next use rather than remembered.
 */
export class JetStreamStream {
  private ready: Promise<JetStreamManager> | undefined;

  constructor(
    private readonly connection: NatsConnection,
    private readonly config: Partial<StreamConfig> & { name: string },
  ) {}

  get name(): string {
    return this.config.name;
  }

  /** The stream's manager once the stream exists with this configuration. */
  ensure(): Promise<JetStreamManager> {
    if (this.ready) return this.ready;
    const ready = (async () => {
      const jsm = await this.connection.jetstreamManager();
      try {
        await jsm.streams.add(this.config);
      } catch (error) {
        if (apiErrorCode(error) !== STREAM_IN_USE) throw error;
        await jsm.streams.update(this.config.name, this.config);
      }
      return jsm;
    })();
    this.ready = ready;
    ready.catch(() => {
      if (this.ready === ready) this.ready = undefined;
    });
    return ready;
  }
}
