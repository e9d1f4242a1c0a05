import { describe, expect, it } from 'vitest';
import { type EventLog, MemoryEventLog, type MessageBus } from '@mcp-platform/shared-messaging';
import { CallOutput } from './call-output';

const KEY = 'tag.c1';
const STREAM = { key: KEY, requestId: 'req-1' };
const RESULT = { result: { content: [{ type: 'text', text: 'done' }] } };

/** A bus that records what is emitted (the only thing CallOutput does with it). */
function fakeBus() {
  const events: Array<{ subject: string; payload: unknown; route?: string }> = [];
  const bus = {
    emit: (contract: { subject: string }, payload: unknown, options?: { route?: string }) =>
      void events.push({ subject: contract.subject, payload, ...(options?.route === undefined ? {} : { route: options.route }) }),
  } as unknown as MessageBus;
  return { bus, events };
}

const note = (n: number) => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: n } });
const message = (payload: Record<string, unknown>, route = 'r') => ({ subject: 'session-broker.v1.call.message-posted', route, payload });

/** Every entry the log holds for `key`, parsed, with its position. */
async function logged(eventLog: EventLog, key = KEY) {
  const entries: Array<{ n: number; entry: unknown }> = [];
  const reading = new AbortController();
  const done = eventLog.read(key, 0, (event) => void entries.push({ n: event.n, entry: JSON.parse(event.data) as unknown }), reading.signal);
  reading.abort();
  await done;
  return entries;
}

/** Lets every queued microtask and I/O callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A log whose appends complete only when the test releases them, one by one, in the order they began. */
class GatedEventLog extends MemoryEventLog {
  readonly begun: number[] = [];
  private readonly gates: Array<() => void> = [];

  override append(stream: string, position: number, data: string): Promise<void> {
    this.begun.push(position);
    return new Promise<void>((resolve) => this.gates.push(resolve)).then(() => super.append(stream, position, data));
  }

  release(): void {
    this.gates.shift()?.();
  }
}

/** A log whose appends take the given time per position (ms), so later ones could overtake earlier ones. */
class SlowEventLog extends MemoryEventLog {
  constructor(private readonly delays: Record<number, number>) {
    super();
  }

  override async append(stream: string, position: number, data: string): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, this.delays[position] ?? 0));
    await super.append(stream, position, data);
  }
}

/** A log that refuses the appends at the given positions. */
class FailingEventLog extends MemoryEventLog {
  constructor(private readonly failing: number[]) {
    super();
  }

  override async append(stream: string, position: number, data: string): Promise<void> {
    if (this.failing.includes(position)) throw new Error('log unavailable');
    await super.append(stream, position, data);
  }
}

describe(CallOutput, () => {
  describe('without a log (modern call, or a legacy call without a resumable stream)', () => {
    it('emits each message in order on the route, without a position', async () => {
      const { bus, events } = fakeBus();
      const output = new CallOutput('call-1', 'r', bus);
      output.send(note(1));
      output.send(note(2));
      expect(output.sent).toBe(true);
      await output.end(RESULT);
      expect(events).toEqual([message({ callId: 'call-1', message: note(1) }), message({ callId: 'call-1', message: note(2) })]);
    });

    it('does not ask to close the connection (nothing could resume it)', async () => {
      const { bus, events } = fakeBus();
      const output = new CallOutput('call-1', 'r', bus);
      output.disconnect();
      await output.end(RESULT);
      expect(events).toEqual([]);
      expect(output.sent).toBe(false);
    });
  });

  describe('the outcome of a silent call', () => {
    it('is logged only once the broker may have primed the stream, or the connection was closed for a resume', async () => {
      const eventLog = new MemoryEventLog();
      const outcomeOf = async (stream: { key: string; requestId: string; primeAfterMs?: number }, close = false) => {
        const output = new CallOutput('call-1', 'r', fakeBus().bus, { eventLog, stream });
        if (close) output.disconnect();
        await output.end(RESULT);
        return eventLog.lastPosition(stream.key);
      };
      // Answered in plain JSON well before the priming event: no client holds an id of this stream.
      await expect(outcomeOf({ key: 'tag.c-fast', requestId: 'r1', primeAfterMs: 500 })).resolves.toBeUndefined();
      // Older sessions get no priming event: a silent call never gave its client an id.
      await expect(outcomeOf({ key: 'tag.c-old', requestId: 'r2' })).resolves.toBeUndefined();
      await expect(outcomeOf({ key: 'tag.c-primed', requestId: 'r3', primeAfterMs: 0 })).resolves.toBe(1);
      await expect(outcomeOf({ key: 'tag.c-closed', requestId: 'r4', primeAfterMs: 500 }, true)).resolves.toBe(1);
    });
  });

  describe('with a log', () => {
    it('appends each message at the next position before emitting it with that position', async () => {
      const { bus, events } = fakeBus();
      const eventLog = new GatedEventLog();
      const output = new CallOutput('call-1', 'r', bus, { eventLog, stream: STREAM });
      output.send(note(1));
      output.send(note(2));
      output.send(note(3));
      await settle();
      // One append at a time, and nothing goes out before its append is stored.
      expect(eventLog.begun).toEqual([1]);
      expect(events).toEqual([]);
      eventLog.release();
      await settle();
      expect(events).toEqual([message({ callId: 'call-1', position: 1, message: note(1) })]);
      expect(eventLog.begun).toEqual([1, 2]);
      eventLog.release();
      await settle();
      eventLog.release();
      const ending = output.end(RESULT);
      await settle();
      expect(events.map((event) => (event.payload as { position?: number }).position)).toEqual([1, 2, 3]);
      // The outcome waits for its own append.
      expect(eventLog.begun).toEqual([1, 2, 3, 4]);
      eventLog.release();
      await ending;
      expect(await logged(eventLog)).toEqual([
        { n: 1, entry: { message: note(1) } },
        { n: 2, entry: { message: note(2) } },
        { n: 3, entry: { message: note(3) } },
        { n: 4, entry: { requestId: 'req-1', outcome: RESULT } },
      ]);
    });

    it('keeps the call order in the log and on the wire when an earlier append is slower than a later one', async () => {
      const { bus, events } = fakeBus();
      const eventLog = new SlowEventLog({ 1: 40, 2: 0, 3: 15 });
      const output = new CallOutput('call-1', 'r', bus, { eventLog, stream: STREAM });
      for (const n of [1, 2, 3]) output.send(note(n));
      await output.end(RESULT);
      expect(events).toEqual([1, 2, 3].map((n) => message({ callId: 'call-1', position: n, message: note(n) })));
      expect((await logged(eventLog)).map((event) => event.n)).toEqual([1, 2, 3, 4]);
    });

    it('appends the outcome with the client request id after every queued message, and resolves once it is stored', async () => {
      const { bus } = fakeBus();
      const eventLog = new SlowEventLog({ 1: 20, 3: 10 });
      const output = new CallOutput('call-1', 'r', bus, { eventLog, stream: STREAM });
      output.send(note(1));
      output.send(note(2));
      await output.end({ error: { code: 'CANCELLED', message: 'Call cancelled' } });
      expect(await logged(eventLog)).toEqual([
        { n: 1, entry: { message: note(1) } },
        { n: 2, entry: { message: note(2) } },
        { n: 3, entry: { requestId: 'req-1', outcome: { error: { code: 'CANCELLED', message: 'Call cancelled' } } } },
      ]);
    });

    it('still emits a message whose append failed, without a position, and gives the next message the next position', async () => {
      const { bus, events } = fakeBus();
      const eventLog = new FailingEventLog([2]);
      const output = new CallOutput('call-1', 'r', bus, { eventLog, stream: STREAM });
      for (const n of [1, 2, 3]) output.send(note(n));
      await output.end(RESULT);
      expect(events).toEqual([
        message({ callId: 'call-1', position: 1, message: note(1) }),
        message({ callId: 'call-1', message: note(2) }),
        message({ callId: 'call-1', position: 3, message: note(3) }),
      ]);
      expect(await logged(eventLog)).toEqual([
        { n: 1, entry: { message: note(1) } },
        { n: 3, entry: { message: note(3) } },
        { n: 4, entry: { requestId: 'req-1', outcome: RESULT } },
      ]);
    });

    it('asks to close the connection only after the messages sent before (S-81), without using a position', async () => {
      const { bus, events } = fakeBus();
      const eventLog = new SlowEventLog({ 1: 20 });
      const output = new CallOutput('call-1', 'r', bus, { eventLog, stream: STREAM });
      output.send(note(1));
      output.disconnect();
      output.send(note(2));
      await output.end(RESULT);
      expect(events).toEqual([
        message({ callId: 'call-1', position: 1, message: note(1) }),
        { subject: 'session-broker.v1.call.disconnect-requested', route: 'r', payload: { callId: 'call-1' } },
        message({ callId: 'call-1', position: 2, message: note(2) }),
      ]);
      expect(output.sent).toBe(true);
    });
  });

  describe('without a route to the client', () => {
    it('sends nothing: no message, no disconnect request', async () => {
      const { bus, events } = fakeBus();
      const eventLog = new MemoryEventLog();
      const output = new CallOutput('call-1', undefined, bus, { eventLog, stream: STREAM });
      output.send(note(1));
      output.disconnect();
      await output.end(RESULT);
      expect(events).toEqual([]);
      expect(output.sent).toBe(false);
    });
  });
});
