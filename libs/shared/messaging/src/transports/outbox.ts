/**
 * Messages sent during one turn of the event loop, sent together at its end (`setImmediate`): the NATS
 * client then writes them to the socket in one call instead of one write, and one wake-up of the NATS
 * server, per message. Syscalls are the hot path's largest cost on small machines. Order is kept.
 */
export class Outbox {
  private queue: Array<() => void> = [];

  /** `onError` hears a send that failed at drain time (e.g. the connection closed meanwhile). */
  constructor(private readonly onError: (error: unknown) => void) {}

  push(send: () => void): void {
    this.queue.push(send);
    if (this.queue.length === 1) setImmediate(() => this.drain());
  }

  /** Sends everything queued now (before a flush or a close). */
  drain(): void {
    const batch = this.queue;
    this.queue = [];
    for (const send of batch) {
      try {
        send();
      } catch (error) {
        this.onError(error);
      }
    }
  }
}
