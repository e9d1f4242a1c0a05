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

  // IPv6 forms that carry an IPv4 address, or lie outside the global unicast block 2000::/3.
  it.each([
    ['IPv4-compatible loopback (RFC 4291 §2.5.5.1, deprecated)', '::127.0.0.1'],
    ['IPv4-compatible loopback, hexadecimal', '::7f00:1'],
    ['IPv4-compatible private', '::10.0.0.1'],
    ['IPv4-compatible metadata service', '::169.254.169.254'],
    ['IPv4-compatible public (deprecated: no host uses it)', '::8.8.8.8'],
    ['IPv4-compatible unspecified', '::0.0.0.0'],
    ['IPv4-mapped unspecified', '::ffff:0.0.0.0'],
    ['IPv4-mapped, long form', '0:0:0:0:0:ffff:7f00:1'],
    ['IPv4-translated (SIIT, RFC 6145)', '::ffff:0:127.0.0.1'],
    ['IPv4-translated public', '::ffff:0:8.8.8.8'],
    ['NAT64 of loopback', '64:ff9b::127.0.0.1'],
    ['NAT64 of a private address', '64:ff9b::10.0.0.1'],
    ['NAT64 of the metadata service', '64:ff9b::a9fe:a9fe'],
    ['NAT64 local-use prefix (RFC 8215)', '64:ff9b:1::808:808'],
    ['6to4 of a private address', '2002:a00:1::1'],
    ['6to4 of a public address (deprecated, RFC 7526)', '2002:808:808::1'],
    ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['loopback, long form', '0:0:0:0:0:0:0:1'],
    ['unspecified, long form', '0:0:0:0:0:0:0:0'],
    ['reserved by the IETF (::/8)', '::1:2'],
    ['discard-only (RFC 6666)', '100::1'],
    ['deprecated site-local', 'fec0::1'],
    ['documentation (RFC 9637)', '3fff::1'],
    ['segment routing (RFC 9602)', '5f00::1'],
    ['unassigned outside 2000::/3', '4000::1'],
  ])('refuses %s: %s', (_form, address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    ['global unicast', '2001:4860:4860::8888'],
    ['IPv4-mapped public', '::ffff:93.184.216.34'],
    ['NAT64 of a public address (DNS64 networks)', '64:ff9b::8.8.8.8'],
  ])('accepts %s: %s', (_form, address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

function refusalOf(check: () => unknown): SsrfRefusedError | undefined {
  try {
    check();
  } catch (error) {
    return error as SsrfRefusedError;
  }
  return undefined;
}

describe(checkOutboundUrl, () => {
  it('refuses schemes other than http and https', () => {
    expect(() => checkOutboundUrl('file:///etc/passwd', { allowPrivateNetworks: true })).toThrow(/only http and https/);
    expect(() => checkOutboundUrl('ftp://example.com', { allowPrivateNetworks: true })).toThrow(SsrfRefusedError);
    expect(refusalOf(() => checkOutboundUrl('ftp://example.com', {}))?.reason).toBe('url');
    expect(refusalOf(() => checkOutboundUrl('http://10.0.0.1/', {}))?.reason).toBe('non_public_address');
  });

  it('refuses a private literal unless private networks are allowed', () => {
    expect(() => checkOutboundUrl('http://127.0.0.1:8080/x', {})).toThrow(/not a public address/);
    expect(() => checkOutboundUrl('http://[::1]:8080/x', {})).toThrow(/not a public address/);
    // The URL parser turns `::127.0.0.1` into `::7f00:1`; either spelling is refused.
    expect(() => checkOutboundUrl('http://[::127.0.0.1]/', {})).toThrow(/not a public address/);
    expect(() => checkOutboundUrl('http://[::ffff:0:7f00:1]:8080/', {})).toThrow(/not a public address/);
    expect(() => checkOutboundUrl('http://[64:ff9b::7f00:1]/', {})).toThrow(/not a public address/);
    expect(checkOutboundUrl('http://127.0.0.1:8080/x', { allowPrivateNetworks: true }).port).toBe('8080');
  });

  it('lets a host name through to the guarded lookup', () => {
    expect(checkOutboundUrl('https://tools.example.com/run', {}).hostname).toBe('tools.example.com');
  });
});

describe(guardedLookup, () => {
  const resolverOf = (addresses: LookupAddress[]) => (_hostname: string, callback: (error: NodeJS.ErrnoException | null, found: LookupAddress[]) => void) =>
    callback(null, addresses);

  function lookup(allowPrivate: boolean, addresses: LookupAddress[], all = false, allowedHosts: string[] = []) {
    return new Promise<{ error: Error | null; address: unknown; family?: number }>((resolve) => {
      guardedLookup({ allowPrivateNetworks: allowPrivate, allowedHosts }, resolverOf(addresses))('tools.example.com', { all }, ((
        error: Error | null,
        address: unknown,
        family?: number,
      ) => resolve({ error, address, ...(family === undefined ? {} : { family }) })) as never);
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
    expect(result.error).toMatchObject({ reason: 'non_public_address' });
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
    const refusal = new SsrfRefusedError('no', 'non_public_address');
    expect(findSsrfRefusal(new Error('fetch failed', { cause: new Error('connect', { cause: refusal }) }))).toBe(refusal);
    // A copy that lost its class (across a realm) keeps its reason.
    const copied = Object.assign(new Error('bad scheme'), { code: 'ERR_SSRF_REFUSED', reason: 'url' });
    expect(findSsrfRefusal(new Error('wrapped', { cause: copied }))).toMatchObject({ message: 'bad scheme', reason: 'url' });
    expect(findSsrfRefusal(new Error('other'))).toBeUndefined();
  });
});
