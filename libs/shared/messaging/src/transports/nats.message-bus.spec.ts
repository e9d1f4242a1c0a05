import type { Msg, NatsConnection, PublishOptions, SubscriptionOptions } from 'nats';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineEvent, defineRpc } from '@mcp-platform/protocol-contracts';
import { NatsMessageBus } from './nats.message-bus';
import { SubjectNaming } from './subject-naming';

const get = defineRpc({ subject: 'tool-executor.v1.thing.get', request: z.object({}), response: z.object({ n: z.number() }) });
const changed = defineEvent({ subject: 'tool-executor.v1.thing.changed', delivery: 'all', payload: z.object({ n: z.number() }) });
const notified = defineEvent({ subject: 'session-broker.v1.call.notified', delivery: 'routed', payload: z.object({ n: z.number() }) });

interface Published {
  subject: string;
  packet: { pattern: string; data: unknown };
  reply: string | undefined;
}

/** A NATS connection that records subscriptions and publications, and answers every request with `{ n: 1 }`. */
function recordingConnection(): { connection: NatsConnection; subscribed: string[]; published: Published[] } {
  const subscribed: string[] = [];
  const published: Published[] = [];
  const callbacks: Array<{ subject: string; callback: (error: unknown, message: Msg) => void }> = [];
  const connection = {
    subscribe(subject: string, options: SubscriptionOptions = {}) {
      subscribed.push(subject);
      callbacks.push({ subject, callback: options.callback as (error: unknown, message: Msg) => void });
      return { unsubscribe: () => undefined };
    },
    publish(subject: string, data: Uint8Array, options: PublishOptions = {}) {
      published.push({ subject, packet: JSON.parse(new TextDecoder().decode(data)) as Published['packet'], reply: options.reply });
      const reply = options.reply;
      if (reply === undefined) return;
      const mux = callbacks.find((entry) => entry.subject.endsWith('.*') && reply.startsWith(entry.subject.slice(0, -1)));
      const answer = new TextEncoder().encode(JSON.stringify({ response: { ok: true, value: { n: 1 } } }));
      setImmediate(() => mux?.callback(null, { subject: reply, data: answer } as unknown as Msg));
    },
    flush: async () => undefined,
  };
  return { connection: connection as unknown as NatsConnection, subscribed, published };
}

describe(NatsMessageBus, () => {
  describe('with a subject prefix', () => {
    it('requests on the prefixed subject and takes the reply on a prefixed inbox', async () => {
      const { connection, subscribed, published } = recordingConnection();
      const bus = new NatsMessageBus(connection, new SubjectNaming('staging'));
      await expect(bus.request(get, {})).resolves.toEqual({ n: 1 });
      expect(published).toHaveLength(1);
      expect(published[0]?.subject).toBe('staging.tool-executor.v1.thing.get');
      expect(published[0]?.reply).toMatch(/^staging\._INBOX\.\w+\.\w+$/);
      expect(published[0]?.packet.pattern).toBe('tool-executor.v1.thing.get');
      expect(subscribed).toEqual([expect.stringMatching(/^staging\._INBOX\.\w+\.\*$/)]);
    });

    it('emits and subscribes events, routed ones too, on prefixed subjects', async () => {
      const { connection, subscribed, published } = recordingConnection();
      const bus = new NatsMessageBus(connection, new SubjectNaming('staging'));
      bus.subscribe(changed, () => undefined);
      bus.subscribe(notified, () => undefined, { route: 'replica-a' });
      bus.emit(changed, { n: 1 });
      bus.emit(notified, { n: 2 }, { route: 'replica-a' });
      await bus.flush();
      expect(subscribed).toEqual(['staging.tool-executor.v1.thing.changed', 'staging.session-broker.v1.call.notified.replica-a']);
      expect(published.map(({ subject, packet }) => ({ subject, pattern: packet.pattern }))).toEqual([
        { subject: 'staging.tool-executor.v1.thing.changed', pattern: 'tool-executor.v1.thing.changed' },
        { subject: 'staging.session-broker.v1.call.notified.replica-a', pattern: 'session-broker.v1.call.notified.replica-a' },
      ]);
    });
  });

  describe('without a subject prefix', () => {
    it('uses the contracts subjects and the default inbox', async () => {
      const { connection, published } = recordingConnection();
      const bus = new NatsMessageBus(connection);
      await expect(bus.request(get, {})).resolves.toEqual({ n: 1 });
      bus.emit(notified, { n: 2 }, { route: 'replica-a' });
      await bus.flush();
      expect(published.map((entry) => entry.subject)).toEqual(['tool-executor.v1.thing.get', 'session-broker.v1.call.notified.replica-a']);
      expect(published[0]?.reply).toMatch(/^_INBOX\./);
    });
  });
});
