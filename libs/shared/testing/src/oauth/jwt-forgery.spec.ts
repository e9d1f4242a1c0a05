import { verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { asUnsecuredJwt, decodeJwt, generateTestSigningKey, signRs256, withFlippedSignatureByte } from './jwt-forgery';

const { privateKey, publicKey } = generateTestSigningKey();
const token = signRs256({ typ: 'at+jwt', kid: 'k1' }, { sub: 'u1', aud: 'http://127.0.0.1/demo/default/mcp' }, privateKey);

function verifies(jws: string): boolean {
  const [header, payload, signature = ''] = jws.split('.');
  return verify('sha256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url'));
}

describe(signRs256, () => {
  it('produces an RS256 JWS that verifies with the public key', () => {
    expect(decodeJwt(token).header).toEqual({ typ: 'at+jwt', kid: 'k1', alg: 'RS256' });
    expect(verifies(token)).toBe(true);
  });
});

describe(withFlippedSignatureByte, () => {
  it('keeps header and claims and breaks only the signature', () => {
    const tampered = withFlippedSignatureByte(token);
    expect(tampered.split('.').slice(0, 2)).toEqual(token.split('.').slice(0, 2));
    expect(tampered).not.toBe(token);
    expect(verifies(tampered)).toBe(false);
  });
});

describe(asUnsecuredJwt, () => {
  it('re-sends the claims under alg none with an empty signature', () => {
    const unsecured = asUnsecuredJwt(token, { payload: { scope: 'admin' } });
    expect(unsecured.endsWith('.')).toBe(true);
    expect(decodeJwt(unsecured)).toEqual({ header: { typ: 'at+jwt', kid: 'k1', alg: 'none' }, payload: { sub: 'u1', aud: 'http://127.0.0.1/demo/default/mcp', scope: 'admin' }, signature: '' });
  });
});

describe(decodeJwt, () => {
  it('refuses a value that is not three segments', () => {
    expect(() => decodeJwt('a.b')).toThrow(/segments/);
  });
});
