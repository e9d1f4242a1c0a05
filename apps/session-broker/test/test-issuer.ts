import type * as Jose from 'jose' with { 'resolution-mode': 'import' };
import type { authorizationServer } from '@mcp-platform/protocol-contracts';

/** The issuer the test brokers are configured with (the authorization server is faked). */
export const TEST_ISSUER = 'http://127.0.0.1:3101/oauth';

/** The public URL the test brokers are configured with; token audiences are built from it. */
export const TEST_PUBLIC_URL = 'http://127.0.0.1:0';

interface TestKey {
  kid: string;
  privateKey: Jose.CryptoKey;
  publicJwk: authorizationServer.PublicJwk;
}

let keyCounter = 0;

/**
 * A stand-in for the authorization server's signing side: RS256 keys made with jose, published to the
 * fake executor's `listSigningKeys`, and access tokens minted as the real one does (RFC 9068).
 */
export class TestIssuer {
  /** How often the broker asked for the key set. */
  fetches = 0;
  private published: TestKey[] = [];

  private constructor(
    private readonly jose: typeof Jose,
    private current: TestKey,
  ) {
    this.published = [current];
  }

  static async create(): Promise<TestIssuer> {
    const jose = await import('jose');
    return new TestIssuer(jose, await newKey(jose));
  }

  /** What `authorizationServer.listSigningKeys` answers. */
  keySet(): { issuer: string; keys: authorizationServer.PublicJwk[] } {
    this.fetches++;
    return { issuer: TEST_ISSUER, keys: this.published.map((key) => key.publicJwk) };
  }

  /** A new current key; the previous ones stay published (as retired keys are). */
  async rotate(): Promise<string> {
    this.current = await newKey(this.jose);
    this.published = [this.current, ...this.published];
    return this.current.kid;
  }

  /**
   * An access token for `<TEST_PUBLIC_URL>/<tenant>/<server>/mcp` by default. `claims` override the
   * defaults (`sub` user-1, `client_id` client-1, `tenant` demo, `scope` mcp, ten minutes).
   */
  async mint(options: { server?: string; tenant?: string; claims?: Record<string, unknown>; typ?: string } = {}): Promise<string> {
    const tenant = options.tenant ?? 'demo';
    const now = Math.floor(Date.now() / 1_000);
    return new this.jose.SignJWT({
      iss: TEST_ISSUER,
      aud: `${TEST_PUBLIC_URL}/${tenant}/${options.server ?? 'private'}/mcp`,
      sub: 'user-1',
      client_id: 'client-1',
      tenant,
      scope: 'mcp',
      iat: now,
      exp: now + 600,
      jti: `jti-${++keyCounter}`,
      ...options.claims,
    })
      .setProtectedHeader({ alg: 'RS256', kid: this.current.kid, typ: options.typ ?? 'at+jwt' })
      .sign(this.current.privateKey);
  }
}

async function newKey(jose: typeof Jose): Promise<TestKey> {
  const kid = `test-key-${++keyCounter}`;
  const { privateKey, publicKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const publicJwk = { ...(await jose.exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } as authorizationServer.PublicJwk;
  return { kid, privateKey, publicJwk };
}
