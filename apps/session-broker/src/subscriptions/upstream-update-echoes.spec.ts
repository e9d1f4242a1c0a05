import { describe, expect, it } from 'vitest';
import { UPSTREAM_UPDATE_ECHO_MS, UpstreamUpdateEchoes } from './upstream-update-echoes';

describe(UpstreamUpdateEchoes, () => {
  it('lets the first update of a URI through and drops the echoes of other replicas within the window', () => {
    let now = 1_000;
    const echoes = new UpstreamUpdateEchoes(() => now);
    expect(echoes.isNews('t', 'file:///a')).toBe(true);
    now += 5;
    expect(echoes.isNews('t', 'file:///a')).toBe(false);
    expect(echoes.isNews('t', 'file:///b')).toBe(true);
    expect(echoes.isNews('other', 'file:///a')).toBe(true);
  });

  it('lets a later change through once the window passed', () => {
    let now = 0;
    const echoes = new UpstreamUpdateEchoes(() => now);
    expect(echoes.isNews('t', 'u')).toBe(true);
    now += UPSTREAM_UPDATE_ECHO_MS;
    expect(echoes.isNews('t', 'u')).toBe(true);
    now += UPSTREAM_UPDATE_ECHO_MS - 1;
    expect(echoes.isNews('t', 'u')).toBe(false);
  });

  it('forgets URIs whose window passed, keeping what it remembers bounded', () => {
    let now = 0;
    const echoes = new UpstreamUpdateEchoes(() => now);
    for (let index = 0; index < 100; index += 1) echoes.isNews('t', `u${index}`);
    now += UPSTREAM_UPDATE_ECHO_MS;
    echoes.isNews('t', 'fresh');
    expect(echoes.size).toBe(1);
  });
});
