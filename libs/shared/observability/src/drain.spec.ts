import { describe, expect, it } from 'vitest';
import { drainUntil, isDrainable } from './drain';

describe(drainUntil, () => {
  it('resolves true as soon as the work is done, ticking while it waits', async () => {
    let left = 3;
    let ticks = 0;
    await expect(
      drainUntil(
        Date.now() + 5_000,
        () => left === 0,
        () => {
          ticks += 1;
          left -= 1;
        },
      ),
    ).resolves.toBe(true);
    expect(ticks).toBe(3);
  });

  it('resolves false at the deadline when work is left', async () => {
    const started = Date.now();
    await expect(drainUntil(started + 120, () => false)).resolves.toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  });
});

describe(isDrainable, () => {
  it('recognises an instance with onDrain', () => {
    expect(isDrainable({ onDrain: () => undefined })).toBe(true);
    expect(isDrainable({})).toBe(false);
    expect(isDrainable(null)).toBe(false);
  });
});
