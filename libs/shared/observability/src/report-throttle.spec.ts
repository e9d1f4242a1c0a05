import { describe, expect, it } from 'vitest';
import { ReportThrottle } from './report-throttle';

describe(ReportThrottle, () => {
  describe('note', () => {
    it('reports the first event of a key, then one a minute with the count since the last report', () => {
      let now = 0;
      const throttle = new ReportThrottle({ now: () => now });
      expect(throttle.note('a')).toBe(1);
      for (let index = 0; index < 99; index += 1) expect(throttle.note('a')).toBeUndefined();
      now = 59_999;
      expect(throttle.note('a')).toBeUndefined();
      now = 60_000;
      expect(throttle.note('a')).toBe(101);
      expect(throttle.note('b')).toBe(1);
    });

    it('tracks a bounded number of keys', () => {
      let now = 0;
      const throttle = new ReportThrottle({ now: () => now, maxKeys: 2 });
      throttle.note('a');
      throttle.note('b');
      throttle.note('c');
      // 'a' was dropped for 'c': it is reported again at once, as a key never seen.
      expect(throttle.note('a')).toBe(1);
      now = 1;
      expect(throttle.note('c')).toBeUndefined();
    });
  });
});
