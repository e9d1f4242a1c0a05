import { describe, expect, it } from 'vitest';
import { type DatedKey, planKeys, rotationDue } from './signing-key-plan';

const DAY = 24 * 3600 * 1000;
const now = new Date('2026-03-01T00:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const key = (kid: string, activatedAgo: number, retiredAgo?: number): DatedKey => ({
  kid,
  activatedAt: ago(activatedAgo),
  retiredAt: retiredAgo === undefined ? null : ago(retiredAgo),
});

describe('planKeys', () => {
  const overlap = 2 * 3600 * 1000;

  it('signs with the newest active key and publishes it first', () => {
    const plan = planKeys([key('old', 40 * DAY, 10 * 60 * 1000), key('new', 10 * 60 * 1000)], now, overlap);
    expect(plan.current?.kid).toBe('new');
    expect(plan.published.map((k) => k.kid)).toEqual(['new', 'old']);
    expect(plan.expired).toEqual([]);
  });

  it('drops retired keys once the overlap has passed', () => {
    const plan = planKeys([key('new', 3 * 3600 * 1000), key('old', 40 * DAY, 3 * 3600 * 1000), key('older', 70 * DAY, 30 * DAY)], now, overlap);
    expect(plan.published.map((k) => k.kid)).toEqual(['new']);
    expect(plan.expired.map((k) => k.kid)).toEqual(['old', 'older']);
  });

  it('publishes an older unretired key (a race) without signing with it', () => {
    const plan = planKeys([key('a', 2 * DAY), key('b', 1 * DAY)], now, overlap);
    expect(plan.current?.kid).toBe('b');
    expect(plan.published.map((k) => k.kid)).toEqual(['b', 'a']);
  });

  it('has no signer when every key is retired or none exists', () => {
    expect(planKeys([], now, overlap).current).toBeUndefined();
    expect(planKeys([key('gone', 40 * DAY, 60 * 1000)], now, overlap).current).toBeUndefined();
  });
});

describe('rotationDue', () => {
  it('is due without a signer and once the signer reaches the rotation age', () => {
    expect(rotationDue(undefined, now, 30)).toBe(true);
    expect(rotationDue(key('k', 29 * DAY), now, 30)).toBe(false);
    expect(rotationDue(key('k', 30 * DAY), now, 30)).toBe(true);
  });
});
