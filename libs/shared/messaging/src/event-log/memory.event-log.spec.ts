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
    it('stores each event at the position its writer gives, without renumbering', async () => {
      const log = new MemoryEventLog();
      await log.append('a', 3, 'three');
      await log.append('a', 7, 'seven');
      await log.append('b', 1, 'other');
      const reading = startReading(log, 'a', 0);
      reading.stop();
      await reading.done;
      expect(reading.events).toEqual([
        { n: 3, data: 'three' },
        { n: 7, data: 'seven' },
      ]);
    });

    it.each([
      ['0', 0],
      ['a negative position', -1],
      ['a fraction', 1.5],
      ['NaN', Number.NaN],
      ['an unsafe integer', 2 ** 53],
    ])('refuses position %s and stores nothing', async (_case, position) => {
      const log = new MemoryEventLog();
      await expect(log.append('a', position, 'x')).rejects.toThrow(/invalid event position/);
      await expect(log.lastPosition('a')).resolves.toBeUndefined();
    });

    it('refuses an invalid stream key', async () => {
      await expect(new MemoryEventLog().append('a.*', 1, 'x')).rejects.toThrow(/invalid event stream key/);
    });

    it('keeps the position given after every earlier event of the stream expired', async () => {
      const clock = fakeClock();
      const log = new MemoryEventLog({ maxAgeMs: 1_000, now: clock.now });
      await log.append('a', 1, 'one');
      await log.append('a', 2, 'two');
      clock.advance(1_000);
      await log.append('a', 3, 'three');
      await expect(log.firstAvailable('a')).resolves.toBe(3);
      await expect(log.lastPosition('a')).resolves.toBe(3);
    });
  });

  describe('lastPosition', () => {
    it('is undefined for a stream without events', async () => {
      await expect(new MemoryEventLog().lastPosition('a')).resolves.toBeUndefined();
    });

    it('is the position of the newest event of the stream, whatever other streams hold', async () => {
      const log = new MemoryEventLog();
      await log.append('a', 1, 'one');
      await log.append('a', 5, 'five');
      await log.append('b', 9, 'other');
      await expect(log.lastPosition('a')).resolves.toBe(5);
      await expect(log.lastPosition('b')).resolves.toBe(9);
    });

    it('stays while the newest event is retained, and is undefined once every event expired', async () => {
      const clock = fakeClock();
      const log = new MemoryEventLog({ maxAgeMs: 1_000, now: clock.now });
      await log.append('a', 1, 'one');
      clock.advance(600);
      await log.append('a', 2, 'two');
      clock.advance(600);
      await expect(log.lastPosition('a')).resolves.toBe(2);
      clock.advance(600);
      await expect(log.lastPosition('a')).resolves.toBeUndefined();
    });

    it('refuses an invalid stream key', async () => {
      await expect(new MemoryEventLog().lastPosition('a b')).rejects.toThrow(/invalid event stream key/);
    });
  });

  describe('read', () => {
    it('replays every event after the given position, then delivers live appends in order until aborted', async () => {
      const log = new MemoryEventLog();
      await log.append('a', 1, 'one');
      await log.append('a', 2, 'two');
      await log.append('b', 1, 'other');
      const reading = startReading(log, 'a', 0);
      expect(reading.events).toEqual([
        { n: 1, data: 'one' },
        { n: 2, data: 'two' },
      ]);
      await log.append('a', 3, 'three');
      await log.append('a', 4, 'four');
      await settle();
      reading.stop();
      await expect(reading.done).resolves.toBeUndefined();
      await log.append('a', 5, 'five');
      await settle();
      expect(reading.events.map((event) => event.n)).toEqual([1, 2, 3, 4]);
    });

    it('skips events up to and including the given position', async () => {
      const log = new MemoryEventLog();
      await log.append('a', 1, 'one');
      await log.append('a', 2, 'two');
      await log.append('a', 3, 'three');
      const reading = startReading(log, 'a', 2);
      await log.append('a', 4, 'four');
      await settle();
      reading.stop();
      await reading.done;
      expect(reading.events).toEqual([
        { n: 3, data: 'three' },
        { n: 4, data: 'four' },
      ]);
    });

    it('skips live events at or below the given position', async () => {
      const log = new MemoryEventLog();
      const reading = startReading(log, 'a', 5);
      await log.append('a', 3, 'three');
      await log.append('a', 7, 'seven');
      await settle();
      reading.stop();
      await reading.done;
      expect(reading.events).toEqual([{ n: 7, data: 'seven' }]);
    });

    it('waits for a stream that has no events yet', async () => {
      const log = new MemoryEventLog();
      const reading = startReading(log, 'a', 0);
      await log.append('a', 1, 'first');
      await settle();
      reading.stop();
      await reading.done;
      expect(reading.events).toEqual([{ n: 1, data: 'first' }]);
    });

    it('does not replay expired events', async () => {
      const clock = fakeClock();
      const log = new MemoryEventLog({ maxAgeMs: 1_000, now: clock.now });
      await log.append('a', 1, 'old');
      clock.advance(600);
      await log.append('a', 2, 'new');
      clock.advance(600);
      const reading = startReading(log, 'a', 0);
      reading.stop();
      await reading.done;
      expect(reading.events).toEqual([{ n: 2, data: 'new' }]);
    });

    it('resolves when the reader stops itself during the replay', async () => {
      const log = new MemoryEventLog();
      await log.append('a', 1, 'one');
      await log.append('a', 2, 'two');
      const controller = new AbortController();
      const seen: number[] = [];
      const done = log.read(
        'a',
        0,
        (event) => {
          seen.push(event.n);
          if (event.n === 2) controller.abort();
        },
        controller.signal,
      );
      await expect(done).resolves.toBeUndefined();
      expect(seen).toEqual([1, 2]);
    });

    it('resolves at once when the signal is already aborted', async () => {
      const log = new MemoryEventLog();
      await log.append('a', 1, 'one');
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
      await log.append('a', 1, 'one');
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
      await log.append('a', 1, 'one');
      clock.advance(600);
      await log.append('a', 2, 'two');
      await expect(log.firstAvailable('a')).resolves.toBe(1);
      clock.advance(600);
      await expect(log.firstAvailable('a')).resolves.toBe(2);
      clock.advance(600);
      await expect(log.firstAvailable('a')).resolves.toBeUndefined();
    });
  });
});
