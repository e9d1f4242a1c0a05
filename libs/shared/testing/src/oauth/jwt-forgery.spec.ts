import { createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { asUnsecuredJwt, decodeJwt, generateTestSigningKey, mintAccessToken, signRs256, withFlippedSignatureByte } from './jwt-forgery';

const { privateKey, publicKey } = generateTestSigningKey();
const token = signRs256({ typ: 'at+jwt', kid: 'k1' }, { sub: 'u1', aud: 'http://127.0.0.1/demo/default/mcp' }, privateKey);

function verifies(jws: string, key = publicKey): boolean {
  const [header, payload, signature = ''] = jws.split('.');
  return verify('sha256', Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, 'base64url'));
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
    expect(decodeJwt(unsecured)).toEqual({
      header: { typ: 'at+jwt', kid: 'k1', alg: 'none' },
      payload: { sub: 'u1', aud: 'http://127.0.0.1/demo/default/mcp', scope: 'admin' },
      signature: '',
    });
  });
});

describe(decodeJwt, () => {
  it('refuses a value that is not three segments', () => {
    expect(() => decodeJwt('a.b')).toThrow(/segments/);
  });
});

describe(generateTestSigningKey, () => {
  it('names the key and publishes only its public half as an RS256 signing JWK', () => {
    const key = generateTestSigningKey('k-named');
    expect(key.publicJwk).toEqual({ kty: 'RSA', n: expect.any(String), e: 'AQAB', kid: 'k-named', alg: 'RS256', use: 'sig' });
    const token = signRs256({ kid: 'k-named' }, { sub: 'u1' }, key.privateKey);
    expect(verifies(token, createPublicKey({ key: key.publicJwk, format: 'jwk' }))).toBe(true);
  });

  it('gives every key a kid of its own when none is asked for', () => {
    expect(generateTestSigningKey().kid).not.toBe(generateTestSigningKey().kid);
  });
});

describe(mintAccessToken, () => {
  const key = generateTestSigningKey('k-mint');
  const claims = { iss: 'http://127.0.0.1:3101/oauth', aud: 'http://127.0.0.1:3000/demo/default/mcp', sub: 'user-1', scope: 'mcp' };

  it('signs an RFC 9068 token: at+jwt with the kid, iat now, ten minutes of life, a jti', () => {
    const minted = mintAccessToken(key, claims, { issuedAt: 1_000 });
    expect(verifies(minted, key.publicKey)).toBe(true);
    const { header, payload } = decodeJwt(minted);
    expect(header).toEqual({ typ: 'at+jwt', kid: 'k-mint', alg: 'RS256' });
    expect(payload).toEqual({ ...claims, iat: 1_000, exp: 1_600, jti: expect.any(String) });
    expect(decodeJwt(mintAccessToken(key, claims)).payload['jti']).not.toBe(payload['jti']);
  });

  it('lets claims override the defaults and leaves out a claim set to undefined', () => {
    const minted = mintAccessToken(key, { ...claims, exp: 5, jti: 'fixed', scope: undefined }, { typ: 'JWT', lifetimeSeconds: 60, issuedAt: 1 });
    expect(decodeJwt(minted).header['typ']).toBe('JWT');
    expect(decodeJwt(minted).payload).toEqual({ iss: claims.iss, aud: claims.aud, sub: 'user-1', iat: 1, exp: 5, jti: 'fixed' });
  });
});
