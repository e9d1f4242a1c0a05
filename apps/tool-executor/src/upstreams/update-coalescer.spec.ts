import { describe, expect, it } from 'vitest';
import { ManualClock } from '@mcp-platform/shared-clock';
import { UpdateCoalescer } from './update-coalescer';

describe(UpdateCoalescer, () => {
  describe('changed', () => {
    it('delivers the first change at once and a flood during the interval as one delivery at its end', () => {
      const clock = new ManualClock();
      const coalescer = new UpdateCoalescer(clock, 1_000);
      const delivered: number[] = [];
      for (let index = 0; index < 1_000; index += 1) coalescer.changed('a', () => delivered.push(clock.now()));
      expect(delivered).toHaveLength(1);
      clock.advance(1_000);
      expect(delivered).toHaveLength(2);
      clock.advance(1_000);
      expect(delivered).toHaveLength(2);
      expect(coalescer.size).toBe(0);
    });

    it('keeps keys apart and forgets a quiet key', () => {
      const clock = new ManualClock();
      const coalescer = new UpdateCoalescer(clock, 1_000);
      const delivered: string[] = [];
      coalescer.changed('a', () => delivered.push('a'));
      coalescer.changed('b', () => delivered.push('b'));
      expect(delivered).toEqual(['a', 'b']);
      clock.advance(1_000);
      expect(coalescer.size).toBe(0);
      coalescer.changed('a', () => delivered.push('a'));
      expect(delivered).toEqual(['a', 'b', 'a']);
    });
  });
});
