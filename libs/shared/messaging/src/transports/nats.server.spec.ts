import type { NatsConnection, SubscriptionOptions } from 'nats';
import { describe, expect, it } from 'vitest';
import { NatsServer } from './nats.server';
import { SubjectNaming } from './subject-naming';

interface Subscribed {
  subject: string;
  queue: string | undefined;
  deliver(data: unknown): Promise<unknown>;
}

/** A NATS connection that records what the server subscribes and lets the test deliver messages. */
function recordingClient(): { client: NatsConnection; subscribed: Subscribed[] } {
  const subscribed: Subscribed[] = [];
  const client = {
    subscribe(subject: string, options: SubscriptionOptions = {}) {
      const callback = options.callback as unknown as (error: unknown, message: unknown) => Promise<unknown>;
      subscribed.push({
        subject,
        queue: options.queue,
        deliver: (data) => callback(null, { subject, data: new TextEncoder().encode(JSON.stringify(data)), headers: undefined, reply: undefined }),
      });
      return { unsubscribe: () => undefined };
    },
  };
  return { client: client as unknown as NatsConnection, subscribed };
}

function serverWithHandlers(naming?: SubjectNaming): { server: NatsServer; received: Array<[string, unknown]> } {
  const server = new NatsServer({ servers: ['nats://127.0.0.1:1'] }, naming);
  const received: Array<[string, unknown]> = [];
  const handler = (pattern: string) => Object.assign(async (data: unknown) => void received.push([pattern, data]), { isEventHandler: true });
  server.addHandler('tool-executor.v1.tool.call', handler('tool-executor.v1.tool.call'), true, { queue: 'tool-executor' });
  server.addHandler('tool-executor.v1.catalog.changed', handler('tool-executor.v1.catalog.changed'), true);
  return { server, received };
}

describe(NatsServer, () => {
  describe('bindEvents', () => {
    it('subscribes each pattern as is, in its queue group, without a prefix', () => {
      const { server } = serverWithHandlers();
      const { client, subscribed } = recordingClient();
      server.bindEvents(client);
      expect(subscribed.map(({ subject, queue }) => ({ subject, queue }))).toEqual([
        { subject: 'tool-executor.v1.tool.call', queue: 'tool-executor' },
        { subject: 'tool-executor.v1.catalog.changed', queue: undefined },
      ]);
    });

    it('subscribes prefixed subjects in prefixed queue groups with a prefix', () => {
      const { server } = serverWithHandlers(new SubjectNaming('staging'));
      const { client, subscribed } = recordingClient();
      server.bindEvents(client);
      expect(subscribed.map(({ subject, queue }) => ({ subject, queue }))).toEqual([
        { subject: 'staging.tool-executor.v1.tool.call', queue: 'staging.tool-executor' },
        { subject: 'staging.tool-executor.v1.catalog.changed', queue: undefined },
      ]);
    });

    it('hands a message on a prefixed subject to the handler of the unprefixed pattern', async () => {
      const { server, received } = serverWithHandlers(new SubjectNaming('staging'));
      const { client, subscribed } = recordingClient();
      server.bindEvents(client);
      const changed = subscribed.find((entry) => entry.subject === 'staging.tool-executor.v1.catalog.changed');
      await changed?.deliver({ pattern: 'tool-executor.v1.catalog.changed', data: { n: 1 } });
      expect(received).toEqual([['tool-executor.v1.catalog.changed', { n: 1 }]]);
    });
  });

  describe('stopTakingRequests', () => {
    it('drains the request handlers’ subscriptions and keeps the event handlers’', async () => {
      const server = new NatsServer({ servers: ['nats://127.0.0.1:1'] });
      server.addHandler('tool-executor.v1.tool.call', async () => undefined, false, { queue: 'tool-executor' });
      server.addHandler('tool-executor.v1.call.cancelled', async () => undefined, true);
      const drained: string[] = [];
      const client = {
        subscribe: (subject: string) => ({ unsubscribe: () => undefined, drain: async () => void drained.push(subject) }),
      } as unknown as NatsConnection;
      server.bindEvents(client);
      await server.stopTakingRequests();
      expect(drained).toEqual(['tool-executor.v1.tool.call']);
      // Once is enough: a second call finds nothing left to drain.
      await server.stopTakingRequests();
      expect(drained).toEqual(['tool-executor.v1.tool.call']);
    });
  });
});
