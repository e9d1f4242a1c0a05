import { describe, expect, it } from 'vitest';
import { ExclusiveLock } from './exclusive-lock';

describe(ExclusiveLock, () => {
  describe('acquire', () => {
    it('grants the lock to one holder at a time, in order of asking', async () => {
      const lock = new ExclusiveLock();
      const order: string[] = [];
      const releaseFirst = await lock.acquire();
      const second = lock.acquire().then((release) => {
        order.push('second');
        release();
      });
      const third = lock.acquire().then((release) => {
        order.push('third');
        release();
      });
      await Promise.resolve();
      order.push('first releases');
      releaseFirst();
      await Promise.all([second, third]);
      expect(order).toEqual(['first releases', 'second', 'third']);
    });

    it('ignores a second release of the same grant', async () => {
      const lock = new ExclusiveLock();
      const release = await lock.acquire();
      release();
      release();
      const next = await lock.acquire();
      let thirdGranted = false;
      const third = lock.acquire().then((releaseThird) => {
        thirdGranted = true;
        releaseThird();
      });
      await new Promise((resolve) => setImmediate(resolve));
      expect(thirdGranted).toBe(false);
      next();
      await third;
      expect(thirdGranted).toBe(true);
    });
  });
});
