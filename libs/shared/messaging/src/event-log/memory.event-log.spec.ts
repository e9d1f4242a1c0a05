import { describe, expect, it } from 'vitest';
import type { LoggedEvent } from './event-log';
import { MemoryEventLog } from './memory.event-log';

/** A clock the test moves by hand. */
function fakeClock(): { now: () => number; advance: (ms: number) => void } {
  let time = 1_000_000;
  return { now: () => time, advance: (ms) => (time += ms) };
}

/** Starts a read and returns what it delivered so far, and a way to end it. */
function startReading(log: MemoryEventLog, stream: string, after: number) {
  const events: LoggedEvent[] = [];
  const controller = new AbortController();
  const done = log.read(stream, after, (event) => events.push(event), controller.signal);
  return { events, done, stop: () => controller.abort() };
}

/** Lets queued microtasks (live deliveries) run. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe(MemoryEventLog, () => {
  describe('append', () => {
    it('numbers the events of each stream 1, 2, 3… independently of other streams', async () => {
      const log = new MemoryEventLog();
      await expect(log.append('a', 'one')).resolves.toBe(1);
      await expect(log.append('a', 'two')).resolves.toBe(2);
      await expect(log.append('b', 'one')).resolves.toBe(1);
      await expect(log.append('a', 'three')).resolves.toBe(3);
    });

    it('numbers concurrent appends in call order', async () => {
      const log = new MemoryEventLog();
      await expect(Promise.all([log.append('a', 'x'), log.append('a', 'y'), log.append('a', 'z')])).resolves.toEqual([1, 2, 3]);
    });

    it('refuses an invalid stream key', async () => {
      await expect(new MemoryEventLog().append('a.*', 'x')).rejects.toThrow(/invalid event stream key/);
    });

    it('restarts numbering once every event of the stream expired', async () => {
      const clock = fakeClock();
      const log = new MemoryEventLog({ maxAgeMs: 1_000, now: clock.now });
      await log.append('a', 'one');
      clock.advance(1_000);
      await expect(log.append('a', 'again')).resolves.toBe(1);
    });

    it('keeps numbering while some events of the stream are retained', async () => {
      const clock = fakeClock();
      const log = new MemoryEventLog({ maxAgeMs: 1_000, now: clock.now });
      await log.append('a', 'one');
      clock.advance(600);
      await log.append('a', 'two');
      clock.advance(600);
      await expect(log.append('a', 'three')).resolves.toBe(3);
    });
  });

  describe('read', () => {
    it('replays every event after the given position, then delivers live appends in order until aborted', async () => {
      const log = new MemoryEventLog();
      await log.append('a', 'one');
      await log.append('a', 'two');
      await log.append('b', 'other');
      const reading = startReading(log, 'a', 0);
      expect(reading.events).toEqual([
        { n: 1, data: 'one' },
        { n: 2, data: 'two' },
      ]);
      await log.append('a', 'three');
      await log.append('a', 'four');
      await settle();
      reading.stop();
      await expect(reading.done).resolves.toBeUndefined();
      await log.append('a', 'five');
      await settle();
      expect(reading.events.map((event) => event.n)).toEqual([1, 2, 3, 4]);
    });

    it('skips events up to and including the given position', async () => {
      const log = new MemoryEventLog();
      for (const data of ['one', 'two', 'three']) await log.append('a', data);
      const reading = startReading(log, 'a', 2);
      await log.append('a', 'four');
      await settle();
      reading.stop();
      await reading.done;
      expect(reading.events).toEqual([
        { n: 3, data: 'three' },
        { n: 4, data: 'four' },
      ]);
    });

    it('waits for a stream that has no events yet', async () => {
      const log = new MemoryEventLog();
      const reading = startReading(log, 'a', 0);
      await log.append('a', 'first');
      await settle();
      reading.stop();
      await reading.done;
      expect(reading.events).toEqual([{ n: 1, data: 'first' }]);
    });

    it('does not replay expired events', async () => {
      const clock = fakeClock();
      const log = new MemoryEventLog({ maxAgeMs: 1_000, now: clock.now });
      await log.append('a', 'old');
      clock.advance(600);
      await log.append('a', 'new');
      clock.advance(600);
      const reading = startReading(log, 'a', 0);
      reading.stop();
      await reading.done;
      expect(reading.events).toEqual([{ n: 2, data: 'new' }]);
    });

    it('resolves at once when the signal is already aborted', async () => {
      const log = new MemoryEventLog();
      await log.append('a', 'one');
      const events: LoggedEvent[] = [];
      await expect(log.read('a', 0, (event) => events.push(event), AbortSignal.abort())).resolves.toBeUndefined();
      expect(events).toEqual([]);
    });

    it('rejects when the listener throws on a live event', async () => {
      const log = new MemoryEventLog();
      const controller = new AbortController();
      const done = log.read(
        'a',
        0,
        () => {
          throw new Error('reader broke');
        },
        controller.signal,
      );
      await log.append('a', 'one');
      await expect(done).rejects.toThrow('reader broke');
    });
  });

  describe('firstAvailable', () => {
    it('is undefined for a stream without events', async () => {
      await expect(new MemoryEventLog().firstAvailable('a')).resolves.toBeUndefined();
    });

    it('is the oldest retained position, which grows as events expire', async () => {
      const clock = fakeClock();
      const log = new MemoryEventLog({ maxAgeMs: 1_000, now: clock.now });
      await log.append('a', 'one');
      clock.advance(600);
      await log.append('a', 'two');
      await expect(log.firstAvailable('a')).resolves.toBe(1);
      clock.advance(600);
      await expect(log.firstAvailable('a')).resolves.toBe(2);
      clock.advance(600);
      await expect(log.firstAvailable('a')).resolves.toBeUndefined();
    });
  });
});
