import { describe, expect, it } from 'vitest';
import { clientNetwork } from './client-network';

describe(clientNetwork, () => {
  it('counts an IPv4 caller by its address, also when it arrives IPv4-mapped', () => {
    expect(clientNetwork('203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv6 caller by its /64, so one subscriber cannot pass for 2^64 callers', () => {
    expect(clientNetwork('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientNetwork('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientNetwork('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
  });

  it('says unknown without a usable address', () => {
    expect(clientNetwork(undefined)).toBe('unknown');
    expect(clientNetwork('not an address')).toBe('unknown');
  });
});
