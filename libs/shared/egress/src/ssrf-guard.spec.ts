import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { checkOutboundUrl, findSsrfRefusal, guardedLookup, isHostExempt, isPublicAddress, SsrfRefusedError } from './ssrf-guard';

describe(isPublicAddress, () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '2001:db8::1',
    '64:ff9b::a00:1',
    '2002:7f00:1::',
    'not an address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe(checkOutboundUrl, () => {
  it('refuses schemes other than http and https', () => {
    expect(() => checkOutboundUrl('file:///etc/passwd', { allowPrivateNetworks: true })).toThrow(/only http and https/);
    expect(() => checkOutboundUrl('ftp://example.com', { allowPrivateNetworks: true })).toThrow(SsrfRefusedError);
  });

  it('refuses a private literal unless private networks are allowed', () => {
    expect(() => checkOutboundUrl('http://127.0.0.1:8080/x', {})).toThrow(/not a public address/);
    expect(() => checkOutboundUrl('http://[::1]:8080/x', {})).toThrow(/not a public address/);
    expect(checkOutboundUrl('http://127.0.0.1:8080/x', { allowPrivateNetworks: true }).port).toBe('8080');
  });

  it('lets a host name through to the guarded lookup', () => {
    expect(checkOutboundUrl('https://tools.example.com/run', {}).hostname).toBe('tools.example.com');
  });
});

describe(guardedLookup, () => {
  const resolverOf =
    (addresses: LookupAddress[]) =>
    (_hostname: string, callback: (error: NodeJS.ErrnoException | null, found: LookupAddress[]) => void) =>
      callback(null, addresses);

  function lookup(allowPrivate: boolean, addresses: LookupAddress[], all = false, allowedHosts: string[] = []) {
    return new Promise<{ error: Error | null; address: unknown; family?: number }>((resolve) => {
      guardedLookup({ allowPrivateNetworks: allowPrivate, allowedHosts }, resolverOf(addresses))('tools.example.com', { all }, ((error: Error | null, address: unknown, family?: number) =>
        resolve({ error, address, ...(family === undefined ? {} : { family }) })) as never);
    });
  }

  it('pins the checked public address', async () => {
    await expect(lookup(false, [{ address: '93.184.216.34', family: 4 }])).resolves.toEqual({ error: null, address: '93.184.216.34', family: 4 });
  });

  it('refuses a name that resolves to a private address (DNS rebinding)', async () => {
    const result = await lookup(false, [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ]);
    expect(result.error).toBeInstanceOf(SsrfRefusedError);
    expect(result.error?.message).toMatch(/10\.0\.0\.5/);
  });

  it('allows private answers when configured, returning every address for all: true', async () => {
    const result = await lookup(true, [{ address: '127.0.0.1', family: 4 }], true);
    expect(result).toEqual({ error: null, address: [{ address: '127.0.0.1', family: 4 }] });
  });
});

describe(isHostExempt, () => {
  it('exempts only the listed hosts, case-insensitively and with or without IPv6 brackets', () => {
    const policy = { allowedHosts: ['Docs.Internal', '127.0.0.1', '::1'] };
    expect(isHostExempt(policy, 'docs.internal')).toBe(true);
    expect(isHostExempt(policy, '127.0.0.1')).toBe(true);
    expect(isHostExempt(policy, '[::1]')).toBe(true);
    expect(isHostExempt(policy, '127.0.0.2')).toBe(false);
    expect(isHostExempt({}, 'docs.internal')).toBe(false);
    expect(isHostExempt({ allowPrivateNetworks: true }, 'anything')).toBe(true);
  });
});

describe('checkOutboundUrl with allowed hosts', () => {
  it('lets an allowed literal through and still refuses the others', () => {
    const policy = { allowedHosts: ['127.0.0.1'] };
    expect(checkOutboundUrl('https://127.0.0.1:8443/client.json', policy, ['https:']).host).toBe('127.0.0.1:8443');
    expect(() => checkOutboundUrl('https://10.0.0.1/client.json', policy, ['https:'])).toThrow(/not a public address/);
  });

  it('refuses protocols outside the given list and credentials in the URL', () => {
    expect(() => checkOutboundUrl('http://example.com/client.json', {}, ['https:'])).toThrow(/only https URLs are allowed/);
    expect(() => checkOutboundUrl('https://user:pw@example.com/', {})).toThrow(/credentials/);
  });
});

describe('guardedLookup with allowed hosts', () => {
  it('lets a listed host resolve to a private address', async () => {
    const result = await new Promise<{ error: Error | null; address: unknown }>((resolve) => {
      guardedLookup({ allowedHosts: ['tools.example.com'] }, (_hostname, callback) => callback(null, [{ address: '10.0.0.7', family: 4 }]))(
        'tools.example.com',
        {},
        ((error: Error | null, address: unknown) => resolve({ error, address })) as never,
      );
    });
    expect(result).toEqual({ error: null, address: '10.0.0.7' });
  });
});

describe(findSsrfRefusal, () => {
  it('finds the refusal in a cause chain', () => {
    const refusal = new SsrfRefusedError('no');
    expect(findSsrfRefusal(new Error('fetch failed', { cause: new Error('connect', { cause: refusal }) }))).toBe(refusal);
    expect(findSsrfRefusal(new Error('other'))).toBeUndefined();
  });
});
