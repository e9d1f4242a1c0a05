import { ServerNats } from '@nestjs/microservices';
import type { NatsConnection, Subscription, SubscriptionOptions } from 'nats';
import { Outbox } from './outbox';
import { SubjectNaming } from './subject-naming';

type Publisher = ReturnType<ServerNats['getPublisher']>;
type NatsServerOptions = ConstructorParameters<typeof ServerNats>[0];

/**
 * Nest's NATS server with two hot-path costs removed. Nest tries `JSON.parse` on every message's
 * subject (for object patterns) and throws on plain ones; our patterns are always plain subjects from
 * the contracts, so the route is the subject itself. And replies finished during one turn of the
 * event loop leave together at its end, so the client library writes them in one call instead of
 * one write (and one wake-up of the NATS server) per reply. Order is kept. With a subject prefix,
 * the handlers' patterns (the contracts' subjects) are subscribed as prefixed subjects in prefixed
 * queue groups, while the route stays the pattern, so handlers are found as without one.
 */
export class NatsServer extends ServerNats {
  // The connection closed under a finished call: its caller times out, as on any lost reply.
  private readonly outbox = new Outbox((error) => this.logger.warn(`a reply could not be sent: ${(error as Error)?.message ?? String(error)}`));
  /** The subscriptions of the request handlers (not the event handlers): what stops at the start of a drain. */
  private readonly requestSubscriptions: Subscription[] = [];

  constructor(
    options: NatsServerOptions,
    private readonly naming: SubjectNaming = new SubjectNaming(),
  ) {
    super(options);
  }

  protected override getRouteFromPattern(pattern: string): string {
    return pattern;
  }

  /**
   * Nest subscribes each registered pattern here, once at start, through `client.subscribe(pattern,
   * { queue, callback })` with the callback bound to the pattern. Handing it a client that prefixes the
   * subject and the queue group keeps Nest's bookkeeping (its subscriptions, drained on close).
   */
  override bindEvents(client: NatsConnection): void {
    const naming = this.naming;
    const handlers = this.messageHandlers;
    const requests = this.requestSubscriptions;
    const prefixing: Pick<NatsConnection, 'subscribe'> = {
      subscribe: (subject: string, options?: SubscriptionOptions) => {
        const subscription = client.subscribe(naming.subject(subject), { ...options, ...(options?.queue ? { queue: naming.queue(options.queue) } : {}) });
        if (handlers.get(subject)?.isEventHandler !== true) requests.push(subscription);
        return subscription;
      },
    };
    super.bindEvents(prefixing);
  }

  /**
   * The start of a drain: the request handlers' queue-group subscriptions are drained (what NATS already
   * delivered is still handled), so new requests go to the other replicas of the app; the event handlers
   * keep listening (a call in flight still hears its cancellation or its client's answer) and the
   * connection stays for the replies of what is in flight.
   */
  async stopTakingRequests(): Promise<void> {
    await Promise.all(this.requestSubscriptions.splice(0).map((subscription) => subscription.drain().catch(() => undefined)));
  }

  override getPublisher(...args: Parameters<ServerNats['getPublisher']>): Publisher {
    const publish = super.getPublisher(...args);
    return (response: Parameters<Publisher>[0]) => {
      this.outbox.push(() => publish(response));
    };
  }

  override async close(): Promise<void> {
    this.outbox.drain();
    await super.close();
  }
}
