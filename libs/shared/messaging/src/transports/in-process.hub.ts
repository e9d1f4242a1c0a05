import { WireErrorCode } from '@mcp-platform/protocol-contracts';
import type { HeaderReader } from '../bus/call-context';
import { RpcError } from '../bus/rpc-error';
import type { ReplyPacket } from '../bus/wire-packet';

/** What a subscriber receives: the packet as JSON text (as on the wire), and its headers. */
export interface HubMessage {
  subject: string;
  data: string;
  headers: HeaderReader;
  /** Present on requests: answers the requester. */
  respond?: (reply: ReplyPacket) => void;
}

type Listener = (message: HubMessage) => void;

interface Subscriber {
  subject: string;
  queue?: string;
  listener: Listener;
}

class MapHeaders implements HeaderReader {
  constructor(private readonly values: Record<string, string>) {}
  get(name: string): string | undefined {
    return this.values[name.toLowerCase()];
  }
}

/**
 * The embedded mode's message hub: the same semantics as core NATS for our purposes — subjects,
 * queue groups (one member per group gets each message, round robin), plain subscribers (every
 * one gets each message), request/reply with a deadline and "no responders". Payloads cross it
 * as JSON text, so nothing is shared by reference and what would not survive NATS does not survive here.
 */
export class InProcessHub {
  private readonly subscribers = new Map<string, Subscriber[]>();
  private readonly roundRobin = new Map<string, number>();

  subscribe(subject: string, listener: Listener, queue?: string): { unsubscribe(): void } {
    const entry: Subscriber = { subject, listener, ...(queue ? { queue } : {}) };
    const list = this.subscribers.get(subject) ?? [];
    list.push(entry);
    this.subscribers.set(subject, list);
    return {
      unsubscribe: () => {
        const current = this.subscribers.get(subject);
        if (!current) return;
        const next = current.filter((candidate) => candidate !== entry);
        if (next.length) this.subscribers.set(subject, next);
        else this.subscribers.delete(subject);
      },
    };
  }

  publish(subject: string, data: string, headers: Record<string, string>): void {
    const receivers = this.pick(subject);
    const message: HubMessage = { subject, data, headers: new MapHeaders(lowerKeys(headers)) };
    // Asynchronous like the network: a publisher never runs its subscribers' code on its own stack.
    for (const receiver of receivers) queueMicrotask(() => receiver.listener(message));
  }

  request(subject: string, data: string, headers: Record<string, string>, timeoutMs: number): Promise<ReplyPacket> {
    const receivers = this.pick(subject);
    const first = receivers[0];
    if (!first) return Promise.reject(new RpcError(WireErrorCode.Unavailable, `no service answers ${subject}`));
    return new Promise<ReplyPacket>((resolve, reject) => {
      let done = false;
      const timer = setTimeout(() => {
        done = true;
        reject(new RpcError(WireErrorCode.Timeout, `${subject}: no reply within ${timeoutMs} ms`));
      }, timeoutMs);
      const respond = (reply: ReplyPacket): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(JSON.parse(JSON.stringify(reply)) as ReplyPacket);
      };
      const message: HubMessage = { subject, data, headers: new MapHeaders(lowerKeys(headers)), respond };
      queueMicrotask(() => first.listener(message));
    });
  }

  /** One subscriber per queue group (round robin) plus every plain subscriber. */
  private pick(subject: string): Subscriber[] {
    const list = this.subscribers.get(subject);
    if (!list?.length) return [];
    const picked: Subscriber[] = [];
    const groups = new Map<string, Subscriber[]>();
    for (const subscriber of list) {
      if (!subscriber.queue) picked.push(subscriber);
      else groups.set(subscriber.queue, [...(groups.get(subscriber.queue) ?? []), subscriber]);
    }
    for (const [queue, members] of groups) {
      const key = `${subject}|${queue}`;
      const turn = this.roundRobin.get(key) ?? 0;
      this.roundRobin.set(key, turn + 1);
      picked.push(members[turn % members.length] as Subscriber);
    }
    return picked;
  }
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  const lowered: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) lowered[name.toLowerCase()] = value;
  return lowered;
}
