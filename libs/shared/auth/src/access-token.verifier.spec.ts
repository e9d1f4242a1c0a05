import type * as Jose from 'jose' with { 'resolution-mode': 'import' };
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AccessTokenVerifier, canonicalResource, type PublicJwk, type SigningKeySet } from './access-token.verifier';
import { KeySetUnavailableError, TokenRejectedError, type TokenRejectionReason } from './token-rejected.error';

/** How many signature checks ran (jose's `jwtVerify`, passed through): tells a remembered token from a checked one. */
const signatureChecks = vi.hoisted(() => ({ count: 0 }));
vi.mock('jose', async (importOriginal) => {
  const original = await importOriginal<typeof Jose>();
  const jwtVerify = original.jwtVerify as (...args: unknown[]) => unknown;
  return {
    ...original,
    jwtVerify: (...args: unknown[]) => {
      signatureChecks.count++;
      return jwtVerify(...args);
    },
  };
});

const ISSUER = 'http://127.0.0.1:3101/oauth';
const AUDIENCE = 'http://127.0.0.1:3000/demo/default/mcp';
const NOW_MS = Date.UTC(2026, 0, 1, 12, 0, 0);
const NOW = NOW_MS / 1_000;

interface SigningKey {
  kid: string;
  alg: 'RS256' | 'PS256' | 'ES256';
  privateKey: Jose.CryptoKey;
  publicJwk: PublicJwk;
}

let jose: typeof Jose;
let rsa: SigningKey;
let ps: SigningKey;
let ec: SigningKey;
let rotated: SigningKey;
let stranger: SigningKey;

async function signingKey(kid: string, alg: SigningKey['alg']): Promise<SigningKey> {
  const { privateKey, publicKey } = await jose.generateKeyPair(alg, { extractable: true });
  const publicJwk = { ...(await jose.exportJWK(publicKey)), kid, alg, use: 'sig' } as PublicJwk;
  return { kid, alg, privateKey, publicJwk };
}

interface TokenOptions {
  key?: SigningKey;
  header?: Record<string, unknown>;
  claims?: Record<string, unknown>;
  omit?: string[];
}

/** A token as the authorization server mints it; `claims` overrides, `omit` removes claims. */
async function token(options: TokenOptions = {}): Promise<string> {
  const key = options.key ?? rsa;
  const claims: Record<string, unknown> = {
    iss: ISSUER,
    aud: AUDIENCE,
    sub: 'user-1',
    client_id: 'client-1',
    tenant: 'demo',
    scope: 'mcp demo:crypto',
    iat: NOW - 10,
    exp: NOW + 600,
    jti: 'jti-1',
    ...options.claims,
  };
  for (const claim of options.omit ?? []) delete claims[claim];
  return new jose.SignJWT(claims as Jose.JWTPayload)
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt', ...options.header } as Jose.JWTHeaderParameters)
    .sign(key.privateKey);
}

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** A key source whose answer can change (rotation), counting its calls. */
function keySource(initial: PublicJwk[]): { source: () => Promise<SigningKeySet>; calls: () => number; publish: (keys: PublicJwk[]) => void } {
  let keys = initial;
  let calls = 0;
  return {
    source: async () => {
      calls++;
      return { issuer: ISSUER, keys };
    },
    calls: () => calls,
    publish: (next) => {
      keys = next;
    },
  };
}

function verifierFor(keys: PublicJwk[], clock = { now: NOW_MS }): AccessTokenVerifier {
  return new AccessTokenVerifier({ keySource: keySource(keys).source, now: () => clock.now });
}

async function rejectionOf(promise: Promise<unknown>): Promise<TokenRejectionReason> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(TokenRejectedError);
  const rejected = error as TokenRejectedError;
  // Safe to show: never the token itself.
  expect(rejected.message).not.toMatch(/eyJ/);
  return rejected.reason;
}

beforeAll(async () => {
  jose = await import('jose');
  [rsa, ps, ec, rotated, stranger] = await Promise.all([
    signingKey('rsa-1', 'RS256'),
    signingKey('ps-1', 'PS256'),
    signingKey('ec-1', 'ES256'),
    signingKey('rsa-2', 'RS256'),
    signingKey('rsa-1', 'RS256'),
  ]);
});

describe('AccessTokenVerifier', () => {
  describe('verify', () => {
    it('returns the claims of a valid RS256 access token', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      await expect(verifier.verify(await token({ claims: { roles: ['tenant-admin'], tenant_id: 'tenant-uuid' } }), { audience: AUDIENCE })).resolves.toEqual({
        subject: 'user-1',
        clientId: 'client-1',
        tenant: 'demo',
        tenantId: 'tenant-uuid',
        scopes: ['mcp', 'demo:crypto'],
        roles: ['tenant-admin'],
        expiresAt: (NOW + 600) * 1_000,
        issuedAt: (NOW - 10) * 1_000,
        audience: [AUDIENCE],
      });
    });

    it('accepts PS256 and ES256 tokens', async () => {
      const verifier = verifierFor([rsa.publicJwk, ps.publicJwk, ec.publicJwk]);
      await expect(verifier.verify(await token({ key: ps }), { audience: AUDIENCE })).resolves.toMatchObject({ subject: 'user-1' });
      await expect(verifier.verify(await token({ key: ec }), { audience: AUDIENCE })).resolves.toMatchObject({ subject: 'user-1' });
    });

    it('reads a token without tenant, client_id, scope, roles and iat as having none', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      const claims = await verifier.verify(await token({ omit: ['tenant', 'client_id', 'scope', 'iat'] }), { audience: AUDIENCE });
      expect(claims).toEqual({ subject: 'user-1', scopes: [], roles: [], expiresAt: (NOW + 600) * 1_000, audience: [AUDIENCE] });
    });

    it('reads obtainable_scope as the scopes the caller could obtain by stepping up (issue 13 item 13)', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      const claims = await verifier.verify(await token({ claims: { scope: 'mcp', obtainable_scope: 'mcp demo:crypto demo:crypto' } }), { audience: AUDIENCE });
      expect(claims).toMatchObject({ scopes: ['mcp'], obtainableScopes: ['mcp', 'demo:crypto'] });
      // Remembered tokens answer a copy too.
      const again = await verifier.verify(await token({ claims: { scope: 'mcp', obtainable_scope: 'mcp demo:crypto demo:crypto' } }), { audience: AUDIENCE });
      expect(again.obtainableScopes).toEqual(['mcp', 'demo:crypto']);
      expect(again.obtainableScopes).not.toBe(claims.obtainableScopes);
    });

    it('refuses an obtainable_scope that is not a string as malformed', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      expect(await rejectionOf(verifier.verify(await token({ claims: { obtainable_scope: ['mcp'] } }), { audience: AUDIENCE }))).toBe('malformed');
    });

    it('refuses alg none as unsupported_alg', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      const unsigned = `${encode({ alg: 'none', typ: 'at+jwt' })}.${encode({ iss: ISSUER, aud: AUDIENCE, sub: 'x', exp: NOW + 60 })}.`;
      expect(await rejectionOf(verifier.verify(unsigned, { audience: AUDIENCE }))).toBe('unsupported_alg');
    });

    it('refuses an HS256 token whose secret is the published public key as unsupported_alg', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      const secret = new TextEncoder().encode(JSON.stringify(rsa.publicJwk));
      const forged = await new jose.SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'admin', exp: NOW + 60 })
        .setProtectedHeader({ alg: 'HS256', kid: rsa.kid, typ: 'at+jwt' })
        .sign(secret);
      expect(await rejectionOf(verifier.verify(forged, { audience: AUDIENCE }))).toBe('unsupported_alg');
    });

    it('refuses a JWT whose typ is not at+jwt (an ID token, say) as wrong_type', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      expect(await rejectionOf(verifier.verify(await token({ header: { typ: 'JWT' } }), { audience: AUDIENCE }))).toBe('wrong_type');
    });

    it('refuses a JWT without typ as wrong_type', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      const untyped = await new jose.SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'x', exp: NOW + 60 })
        .setProtectedHeader({ alg: 'RS256', kid: rsa.kid })
        .sign(rsa.privateKey);
      expect(await rejectionOf(verifier.verify(untyped, { audience: AUDIENCE }))).toBe('wrong_type');
    });

    it('accepts typ application/at+jwt, the same media type spelled in full', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      await expect(verifier.verify(await token({ header: { typ: 'application/at+jwt' } }), { audience: AUDIENCE })).resolves.toMatchObject({
        subject: 'user-1',
      });
    });

    it('refuses a token signed by a key that is not in the set as unknown_key', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      expect(await rejectionOf(verifier.verify(await token({ key: rotated }), { audience: AUDIENCE }))).toBe('unknown_key');
    });

    it('refuses a token signed by another key under a published kid as bad_signature', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      expect(await rejectionOf(verifier.verify(await token({ key: stranger }), { audience: AUDIENCE }))).toBe('bad_signature');
    });

    it('refuses a token whose payload was altered after signing as bad_signature', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      const [header, , signature] = (await token()).split('.');
      const altered = `${header}.${encode({ iss: ISSUER, aud: AUDIENCE, sub: 'someone-else', exp: NOW + 600 })}.${signature}`;
      expect(await rejectionOf(verifier.verify(altered, { audience: AUDIENCE }))).toBe('bad_signature');
    });

    it('refuses a token from another issuer as wrong_issuer', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      expect(await rejectionOf(verifier.verify(await token({ claims: { iss: 'http://127.0.0.1:3101/other' } }), { audience: AUDIENCE }))).toBe('wrong_issuer');
    });

    it('refuses an issuer that differs only by a trailing slash (exact match)', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      expect(await rejectionOf(verifier.verify(await token({ claims: { iss: `${ISSUER}/` } }), { audience: AUDIENCE }))).toBe('wrong_issuer');
    });

    it('refuses a token for another resource as wrong_audience', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      const other = 'http://127.0.0.1:3000/demo/other/mcp';
      expect(await rejectionOf(verifier.verify(await token({ claims: { aud: other } }), { audience: AUDIENCE }))).toBe('wrong_audience');
      expect(await rejectionOf(verifier.verify(await token({ omit: ['aud'] }), { audience: AUDIENCE }))).toBe('wrong_audience');
    });

    it('compares scheme and host case-insensitively but the path exactly (S-140)', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      await expect(verifier.verify(await token({ claims: { aud: 'HTTP://127.0.0.1:3000/demo/default/mcp' } }), { audience: AUDIENCE })).resolves.toMatchObject({
        subject: 'user-1',
      });
      await expect(
        verifier.verify(await token({ claims: { aud: 'https://MCP.example.com/demo/default/mcp' } }), { audience: 'https://mcp.example.com/demo/default/mcp' }),
      ).resolves.toMatchObject({ subject: 'user-1' });
      expect(await rejectionOf(verifier.verify(await token({ claims: { aud: 'http://127.0.0.1:3000/Demo/default/mcp' } }), { audience: AUDIENCE }))).toBe(
        'wrong_audience',
      );
    });

    it('accepts an audience list that contains the resource', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      const claims = await verifier.verify(await token({ claims: { aud: ['http://elsewhere/mcp', AUDIENCE] } }), { audience: AUDIENCE });
      expect(claims.audience).toEqual(['http://elsewhere/mcp', AUDIENCE]);
    });

    it('refuses an expired token as expired, beyond the clock tolerance only', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      expect(await rejectionOf(verifier.verify(await token({ claims: { exp: NOW - 6 } }), { audience: AUDIENCE }))).toBe('expired');
      await expect(verifier.verify(await token({ claims: { exp: NOW - 4 } }), { audience: AUDIENCE })).resolves.toMatchObject({ subject: 'user-1' });
    });

    it('honours a configured clock tolerance', async () => {
      const verifier = new AccessTokenVerifier({ keySource: keySource([rsa.publicJwk]).source, now: () => NOW_MS, clockToleranceSeconds: 0 });
      expect(await rejectionOf(verifier.verify(await token({ claims: { exp: NOW - 1 } }), { audience: AUDIENCE }))).toBe('expired');
    });

    it('refuses a token without exp as malformed', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      expect(await rejectionOf(verifier.verify(await token({ omit: ['exp'] }), { audience: AUDIENCE }))).toBe('malformed');
    });

    it('refuses a token whose nbf lies ahead as not_yet_valid', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      expect(await rejectionOf(verifier.verify(await token({ claims: { nbf: NOW + 60 } }), { audience: AUDIENCE }))).toBe('not_yet_valid');
      await expect(verifier.verify(await token({ claims: { nbf: NOW + 3 } }), { audience: AUDIENCE })).resolves.toMatchObject({ subject: 'user-1' });
    });

    it('refuses a token issued in the future as not_yet_valid', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      expect(await rejectionOf(verifier.verify(await token({ claims: { iat: NOW + 60 } }), { audience: AUDIENCE }))).toBe('not_yet_valid');
    });

    it('refuses what is not a signed JWT as malformed', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      for (const garbage of ['', 'abc', 'a.b.c', `${encode({ alg: 'RS256', typ: 'at+jwt' })}.!!!.x`, 'a.b.c.d.e']) {
        expect(await rejectionOf(verifier.verify(garbage, { audience: AUDIENCE }))).toBe('malformed');
      }
    });

    it('refuses a token without a subject or with claims of the wrong type as malformed', async () => {
      const verifier = verifierFor([rsa.publicJwk]);
      expect(await rejectionOf(verifier.verify(await token({ omit: ['sub'] }), { audience: AUDIENCE }))).toBe('malformed');
      expect(await rejectionOf(verifier.verify(await token({ claims: { roles: 'platform-admin' } }), { audience: AUDIENCE }))).toBe('malformed');
      expect(await rejectionOf(verifier.verify(await token({ claims: { tenant: 7 } }), { audience: AUDIENCE }))).toBe('malformed');
      expect(await rejectionOf(verifier.verify(await token({ claims: { tenant_id: 7 } }), { audience: AUDIENCE }))).toBe('malformed');
    });

    it('fetches the key set once and reuses it', async () => {
      const keys = keySource([rsa.publicJwk]);
      const verifier = new AccessTokenVerifier({ keySource: keys.source, now: () => NOW_MS });
      const jwt = await token();
      await Promise.all([verifier.verify(jwt, { audience: AUDIENCE }), verifier.verify(jwt, { audience: AUDIENCE })]);
      await verifier.verify(jwt, { audience: AUDIENCE });
      expect(keys.calls()).toBe(1);
    });

    it('refetches the key set once when a token names an unknown kid, and accepts the rotated key', async () => {
      const keys = keySource([rsa.publicJwk]);
      const verifier = new AccessTokenVerifier({ keySource: keys.source, now: () => NOW_MS });
      await verifier.verify(await token(), { audience: AUDIENCE });
      keys.publish([rotated.publicJwk, rsa.publicJwk]);
      await expect(verifier.verify(await token({ key: rotated }), { audience: AUDIENCE })).resolves.toMatchObject({ subject: 'user-1' });
      expect(keys.calls()).toBe(2);
    });

    it('refetches for unknown kids at most once per minRefreshIntervalMs', async () => {
      const clock = { now: NOW_MS };
      const keys = keySource([rsa.publicJwk]);
      const verifier = new AccessTokenVerifier({ keySource: keys.source, now: () => clock.now, minRefreshIntervalMs: 10_000 });
      const unknown = await token({ key: rotated });
      expect(await rejectionOf(verifier.verify(unknown, { audience: AUDIENCE }))).toBe('unknown_key');
      // The cold load and one refetch for the unknown kid.
      expect(keys.calls()).toBe(2);
      clock.now += 9_999;
      expect(await rejectionOf(verifier.verify(unknown, { audience: AUDIENCE }))).toBe('unknown_key');
      // Nothing more within the interval: a flood of made-up kids cannot hammer the authorization server.
      expect(keys.calls()).toBe(2);
      clock.now += 1;
      keys.publish([rsa.publicJwk, rotated.publicJwk]);
      await expect(verifier.verify(unknown, { audience: AUDIENCE })).resolves.toMatchObject({ subject: 'user-1' });
      expect(keys.calls()).toBe(3);
    });

    it('fetches afresh after invalidateKeys, whatever the refresh interval', async () => {
      const keys = keySource([rsa.publicJwk]);
      const verifier = new AccessTokenVerifier({ keySource: keys.source, now: () => NOW_MS });
      await verifier.verify(await token(), { audience: AUDIENCE });
      keys.publish([rotated.publicJwk]);
      verifier.invalidateKeys();
      await expect(verifier.verify(await token({ key: rotated }), { audience: AUDIENCE })).resolves.toMatchObject({ subject: 'user-1' });
      expect(keys.calls()).toBe(2);
      // The retired key is gone from the new set (one refetch for its kid confirms it).
      expect(await rejectionOf(verifier.verify(await token(), { audience: AUDIENCE }))).toBe('unknown_key');
      expect(keys.calls()).toBe(3);
    });

    it('fails with KeySetUnavailableError when the key source fails, and does not remember the failure', async () => {
      let fail = true;
      const verifier = new AccessTokenVerifier({
        keySource: async () => {
          if (fail) throw new Error('no responders');
          return { issuer: ISSUER, keys: [rsa.publicJwk] };
        },
        now: () => NOW_MS,
      });
      const jwt = await token();
      await expect(verifier.verify(jwt, { audience: AUDIENCE })).rejects.toBeInstanceOf(KeySetUnavailableError);
      fail = false;
      await expect(verifier.verify(jwt, { audience: AUDIENCE })).resolves.toMatchObject({ subject: 'user-1' });
    });
  });
});

describe('AccessTokenVerifier remembering verified tokens', () => {
  beforeEach(() => {
    signatureChecks.count = 0;
  });

  it('checks a token once and answers the same token again from memory, with the same claims', async () => {
    const verifier = verifierFor([rsa.publicJwk]);
    const jwt = await token();
    const first = await verifier.verify(jwt, { audience: AUDIENCE });
    await expect(verifier.verify(jwt, { audience: AUDIENCE })).resolves.toEqual(first);
    expect(signatureChecks.count).toBe(1);
  });

  it('still refuses a remembered token once it has expired, with the same clock tolerance', async () => {
    const clock = { now: NOW_MS };
    const verifier = verifierFor([rsa.publicJwk], clock);
    const jwt = await token({ claims: { exp: NOW + 600 } });
    await verifier.verify(jwt, { audience: AUDIENCE });
    clock.now = (NOW + 604) * 1_000;
    await expect(verifier.verify(jwt, { audience: AUDIENCE })).resolves.toMatchObject({ subject: 'user-1' });
    expect(signatureChecks.count).toBe(1);
    clock.now = (NOW + 605) * 1_000;
    expect(await rejectionOf(verifier.verify(jwt, { audience: AUDIENCE }))).toBe('expired');
  });

  it('still refuses a remembered token for another resource as wrong_audience', async () => {
    const verifier = verifierFor([rsa.publicJwk]);
    const jwt = await token();
    await verifier.verify(jwt, { audience: AUDIENCE });
    expect(await rejectionOf(verifier.verify(jwt, { audience: 'http://127.0.0.1:3000/demo/other/mcp' }))).toBe('wrong_audience');
    // The canonical comparison applies to remembered tokens too (S-140).
    await expect(verifier.verify(jwt, { audience: 'HTTP://127.0.0.1:3000/demo/default/mcp' })).resolves.toMatchObject({ subject: 'user-1' });
  });

  it('forgets remembered tokens when the keys are invalidated (rotation): a retired key is refused at once', async () => {
    const keys = keySource([rsa.publicJwk]);
    const verifier = new AccessTokenVerifier({ keySource: keys.source, now: () => NOW_MS });
    const jwt = await token();
    await verifier.verify(jwt, { audience: AUDIENCE });
    keys.publish([rotated.publicJwk]);
    verifier.invalidateKeys();
    expect(await rejectionOf(verifier.verify(jwt, { audience: AUDIENCE }))).toBe('unknown_key');
  });

  it('forgets remembered tokens when a refetch for an unknown kid replaces the key set', async () => {
    const keys = keySource([rsa.publicJwk]);
    const verifier = new AccessTokenVerifier({ keySource: keys.source, now: () => NOW_MS });
    const jwt = await token();
    await verifier.verify(jwt, { audience: AUDIENCE });
    keys.publish([rotated.publicJwk]);
    await expect(verifier.verify(await token({ key: rotated }), { audience: AUDIENCE })).resolves.toMatchObject({ subject: 'user-1' });
    expect(await rejectionOf(verifier.verify(jwt, { audience: AUDIENCE }))).toBe('unknown_key');
  });

  it('does not remember refusals: a token refused before it is valid is accepted once it is', async () => {
    const clock = { now: NOW_MS };
    const verifier = verifierFor([rsa.publicJwk], clock);
    const jwt = await token({ claims: { nbf: NOW + 60 } });
    expect(await rejectionOf(verifier.verify(jwt, { audience: AUDIENCE }))).toBe('not_yet_valid');
    clock.now = (NOW + 60) * 1_000;
    await expect(verifier.verify(jwt, { audience: AUDIENCE })).resolves.toMatchObject({ subject: 'user-1' });
  });

  it('hands each caller its own copy of the claims', async () => {
    const verifier = verifierFor([rsa.publicJwk]);
    const jwt = await token();
    const first = await verifier.verify(jwt, { audience: AUDIENCE });
    first.scopes.push('admin');
    first.audience.length = 0;
    await expect(verifier.verify(jwt, { audience: AUDIENCE })).resolves.toMatchObject({ scopes: ['mcp', 'demo:crypto'], audience: [AUDIENCE] });
  });

  it('remembers at most verifiedTokenCacheSize tokens, the least recently used leaving first', async () => {
    const verifier = new AccessTokenVerifier({ keySource: keySource([rsa.publicJwk]).source, now: () => NOW_MS, verifiedTokenCacheSize: 2 });
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((jti) => token({ claims: { jti } })));
    for (const jwt of [a, b, a, c, a]) await verifier.verify(jwt as string, { audience: AUDIENCE });
    // a, b and c checked once each; a answered from memory twice (c pushed b out, not a).
    expect(signatureChecks.count).toBe(3);
    await verifier.verify(b as string, { audience: AUDIENCE });
    expect(signatureChecks.count).toBe(4);
  });

  it('checks every time when verifiedTokenCacheSize is 0', async () => {
    const verifier = new AccessTokenVerifier({ keySource: keySource([rsa.publicJwk]).source, now: () => NOW_MS, verifiedTokenCacheSize: 0 });
    const jwt = await token();
    await verifier.verify(jwt, { audience: AUDIENCE });
    await verifier.verify(jwt, { audience: AUDIENCE });
    expect(signatureChecks.count).toBe(2);
  });
});

describe('canonicalResource', () => {
  it('lowercases scheme and host, drops a default port and keeps the path', () => {
    expect(canonicalResource('HTTPS://MCP.Example.com:443/Demo/mcp')).toBe('https://mcp.example.com/Demo/mcp');
  });

  it('leaves a value that is not a URL as it is', () => {
    expect(canonicalResource('urn:x:Thing')).toBe('urn:x:Thing');
    expect(canonicalResource('not a url')).toBe('not a url');
  });
});
