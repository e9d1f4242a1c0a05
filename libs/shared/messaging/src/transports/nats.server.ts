import { ServerNats } from '@nestjs/microservices';
import type { NatsConnection, SubscriptionOptions } from 'nats';
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
    if (!this.naming.prefix) return super.bindEvents(client);
    const naming = this.naming;
    const prefixing: Pick<NatsConnection, 'subscribe'> = {
      subscribe: (subject: string, options?: SubscriptionOptions) =>
        client.subscribe(naming.subject(subject), { ...options, ...(options?.queue ? { queue: naming.queue(options.queue) } : {}) }),
    };
    super.bindEvents(prefixing);
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
