import { describe, expect, it } from 'vitest';
import { SeededRandom } from './seeded-random';

describe(SeededRandom, () => {
  describe('next', () => {
    it('repeats the same sequence for the same seed', () => {
      const first = new SeededRandom(42);
      const second = new SeededRandom(42);
      const a = Array.from({ length: 20 }, () => first.next());
      const b = Array.from({ length: 20 }, () => second.next());
      expect(a).toEqual(b);
      expect(new Set(a).size).toBe(20);
    });

    it('gives another sequence for another seed', () => {
      expect(new SeededRandom(1).next()).not.toBe(new SeededRandom(2).next());
    });
  });

  describe('int', () => {
    it('stays within both bounds', () => {
      const random = new SeededRandom(7);
      const values = Array.from({ length: 2000 }, () => random.int(-3, 3));
      expect(Math.min(...values)).toBe(-3);
      expect(Math.max(...values)).toBe(3);
    });
  });
});
