import { describe, expect, it } from 'vitest';
import { KeyEncryption } from './key-encryption';

const jwk = { kty: 'RSA', kid: 'k1', n: 'n', e: 'AQAB', d: 'secret-part' };

describe(KeyEncryption, () => {
  it('stores the JWK as is without a secret', () => {
    const plain = new KeyEncryption(undefined);
    expect(plain.seal(jwk)).toEqual(jwk);
    expect(plain.open(plain.seal(jwk), 'k1')).toEqual(jwk);
  });

  it('seals with a secret so the private member is not readable, and opens it again', () => {
    const encryption = new KeyEncryption('a secret of some length');
    const sealed = encryption.seal(jwk);
    expect(JSON.stringify(sealed)).not.toContain('secret-part');
    expect(encryption.open(sealed, 'k1')).toEqual(jwk);
  });

  it('refuses to open with another secret or none', () => {
    const sealed = new KeyEncryption('a secret of some length').seal(jwk);
    expect(() => new KeyEncryption('another secret entirely').open(sealed, 'k1')).toThrow(/not the one it was stored with/);
    expect(() => new KeyEncryption(undefined).open(sealed, 'k1')).toThrow(/is encrypted/);
  });

  it('still reads keys stored before encryption was turned on', () => {
    expect(new KeyEncryption('a secret of some length').open(jwk, 'k1')).toEqual(jwk);
  });
});
