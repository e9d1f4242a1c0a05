import { createHash } from 'node:crypto';
import type { authorizationServer } from '@mcp-platform/protocol-contracts';
import { generateTestSigningKey, mintAccessToken, type TestSigningKey } from '@mcp-platform/shared-testing';

/** The issuer the test brokers are configured with (the authorization server is faked). */
export const TEST_ISSUER = 'http://127.0.0.1:3101/oauth';

/** The public URL the test brokers are configured with; token audiences are built from it. */
export const TEST_PUBLIC_URL = 'http://127.0.0.1:0';

/** The id (`tenant_id`) the test issuer gives a tenant: a uuid derived from its slug. */
export function testTenantId(tenant: string): string {
  const hex = createHash('sha256').update(tenant).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

let keyCounter = 0;

/**
 * A stand-in for the authorization server's signing side: RS256 keys of the test's own, published to
 * the fake executor's `listSigningKeys`, and access tokens minted as the real one does (RFC 9068,
 * with the testing lib's `mintAccessToken`).
 */
export class TestIssuer {
  /** How often the broker asked for the key set. */
  fetches = 0;
  /** What `authorizationServer.listRevocations` answers (a broker loads it before its first token). */
  readonly revocations: authorizationServer.Revocation[] = [];
  private published: TestSigningKey[];

  private constructor(private current: TestSigningKey) {
    this.published = [current];
  }

  static async create(): Promise<TestIssuer> {
    return new TestIssuer(newKey());
  }

  /** What `authorizationServer.listSigningKeys` answers. */
  keySet(): { issuer: string; keys: authorizationServer.PublicJwk[] } {
    this.fetches++;
    return { issuer: TEST_ISSUER, keys: this.published.map((key) => key.publicJwk) };
  }

  /** A new current key; the previous ones stay published (as retired keys are). */
  async rotate(): Promise<string> {
    this.current = newKey();
    this.published = [this.current, ...this.published];
    return this.current.kid;
  }

  /**
   * An access token for `<TEST_PUBLIC_URL>/<tenant>/<server>/mcp` by default. `claims` override the
   * defaults (`sub` user-1, `client_id` client-1, `tenant` demo with its `tenant_id`, `scope` mcp, ten
   * minutes); a claim set to `undefined` is left out.
   */
  async mint(options: { server?: string; tenant?: string; claims?: Record<string, unknown>; typ?: string } = {}): Promise<string> {
    const tenant = options.tenant ?? 'demo';
    return mintAccessToken(
      this.current,
      {
        iss: TEST_ISSUER,
        aud: `${TEST_PUBLIC_URL}/${tenant}/${options.server ?? 'private'}/mcp`,
        sub: 'user-1',
        client_id: 'client-1',
        tenant,
        tenant_id: testTenantId(tenant),
        scope: 'mcp',
        ...options.claims,
      },
      { typ: options.typ ?? 'at+jwt' },
    );
  }
}

function newKey(): TestSigningKey {
  return generateTestSigningKey(`test-key-${++keyCounter}`);
}
