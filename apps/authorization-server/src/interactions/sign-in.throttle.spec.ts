import { describe, expect, it } from 'vitest';
import { FREE_ATTEMPTS, MAX_PAUSE_MS, SignInThrottle } from './sign-in.throttle';

describe(SignInThrottle, () => {
  function throttle() {
    let now = 1_000_000;
    const instance = new SignInThrottle(() => now);
    return { instance, advance: (ms: number) => (now += ms) };
  }

  it('lets the first attempts through without a pause', () => {
    const { instance } = throttle();
    const key = SignInThrottle.key('Demo', '10.0.0.1');
    for (let attempt = 1; attempt < FREE_ATTEMPTS; attempt += 1) instance.recordFailure(key);
    expect(instance.retryAfterMs(key)).toBe(0);
  });

  it('pauses after the free attempts and doubles the pause with each failure', () => {
    const { instance } = throttle();
    const key = SignInThrottle.key('demo', '10.0.0.1');
    for (let attempt = 0; attempt < FREE_ATTEMPTS; attempt += 1) instance.recordFailure(key);
    expect(instance.retryAfterMs(key)).toBe(1000);
    instance.recordFailure(key);
    expect(instance.retryAfterMs(key)).toBe(2000);
  });

  it('caps the pause', () => {
    const { instance } = throttle();
    const key = SignInThrottle.key('demo', '10.0.0.1');
    for (let attempt = 0; attempt < 40; attempt += 1) instance.recordFailure(key);
    expect(instance.retryAfterMs(key)).toBe(MAX_PAUSE_MS);
  });

  it('counts usernames case-insensitively and per address', () => {
    const { instance } = throttle();
    for (let attempt = 0; attempt < FREE_ATTEMPTS; attempt += 1) instance.recordFailure(SignInThrottle.key('Demo', '10.0.0.1'));
    expect(instance.retryAfterMs(SignInThrottle.key('demo', '10.0.0.1'))).toBeGreaterThan(0);
    expect(instance.retryAfterMs(SignInThrottle.key('demo', '10.0.0.2'))).toBe(0);
  });

  it('forgets the failures after a success or a quiet period', () => {
    const { instance, advance } = throttle();
    const key = SignInThrottle.key('demo', '10.0.0.1');
    for (let attempt = 0; attempt < FREE_ATTEMPTS; attempt += 1) instance.recordFailure(key);
    instance.recordSuccess(key);
    expect(instance.retryAfterMs(key)).toBe(0);
    for (let attempt = 0; attempt < FREE_ATTEMPTS; attempt += 1) instance.recordFailure(key);
    advance(MAX_PAUSE_MS + 1);
    instance.recordFailure(key);
    expect(instance.retryAfterMs(key)).toBe(0);
  });
});
