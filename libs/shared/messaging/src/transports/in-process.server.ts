import { type CustomTransportStrategy, Server } from '@nestjs/microservices';
import { isObservable, lastValueFrom } from 'rxjs';
import type { HeaderReader } from '../bus/call-context';
import type { ReplyPacket, RequestPacket } from '../bus/wire-packet';
import type { HubMessage, InProcessHub } from './in-process.hub';

/** The transport context our handlers receive in the embedded mode (the twin of Nest's `NatsContext`). */
export class InProcessContext {
  constructor(
    private readonly subject: string,
    private readonly headers: HeaderReader,
  ) {}
  getSubject(): string {
    return this.subject;
  }
  getHeaders(): HeaderReader {
    return this.headers;
  }
}

/**
 * A Nest microservice strategy over the in-process hub: binds every `@RpcHandler`/`@EventHandler`
 * with the queue group its decorator chose, exactly as Nest's NATS server does.
 */
export class InProcessServer extends Server implements CustomTransportStrategy {
  private subscriptions: Array<{ unsubscribe(): void }> = [];

  constructor(private readonly hub: InProcessHub) {
    super();
  }

  listen(callback: () => void): void {
    for (const [pattern, handler] of this.messageHandlers) {
      const queue = (handler.extras as { queue?: string } | undefined)?.queue;
      this.subscriptions.push(this.hub.subscribe(pattern, (message) => void this.dispatch(pattern, message), queue));
    }
    callback();
  }

  close(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.subscriptions = [];
  }

  on(): void {
    // The hub has no connection status to report.
  }

  unwrap<T>(): T {
    return this.hub as T;
  }

  private async dispatch(pattern: string, message: HubMessage): Promise<void> {
    const handler = this.getHandlerByPattern(pattern);
    const packet = JSON.parse(message.data) as Partial<RequestPacket>;
    const context = new InProcessContext(message.subject, message.headers);
    if (!handler) {
      message.respond?.({ id: packet.id, err: 'There is no matching message handler defined in the remote service.', isDisposed: true });
      return;
    }
    try {
      const result: unknown = await handler(packet.data, context);
      const value = isObservable(result) ? await lastValueFrom(result, { defaultValue: undefined }) : result;
      message.respond?.({ id: packet.id, response: value, isDisposed: true } satisfies ReplyPacket);
    } catch (error) {
      this.logger.error(error);
      message.respond?.({ id: packet.id, err: (error as Error).message ?? String(error), isDisposed: true });
    }
  }
}
