import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Jwk } from './signing-key.generator';

/** How a private JWK is stored when a key encryption secret is configured. */
interface SealedJwk {
  sealed: 'A256GCM';
  iv: string;
  tag: string;
  ciphertext: string;
}

const INFO = 'mcp-platform authorization-server signing keys v1';

/**
 * Encrypts private JWKs at rest with AES-256-GCM under a key derived (HKDF-SHA256) from the operator's
 * secret. Without a secret, keys are stored as plain JWKs; a plain JWK is read whatever the setting,
 * so turning encryption on later needs no migration (new keys are sealed, old ones age out).
 */
export class KeyEncryption {
  private readonly key: Buffer | undefined;

  constructor(secret: string | undefined) {
    this.key = secret ? Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), INFO, 32)) : undefined;
  }

  /** What to store for this private JWK. */
  seal(jwk: Jwk): Record<string, unknown> {
    if (!this.key) return { ...jwk };
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(jwk), 'utf8'), cipher.final()]);
    const sealed: SealedJwk = {
      sealed: 'A256GCM',
      iv: iv.toString('base64url'),
      tag: cipher.getAuthTag().toString('base64url'),
      ciphertext: ciphertext.toString('base64url'),
    };
    return { ...sealed };
  }

  /** The private JWK from what was stored; throws when it is sealed and the secret is missing or wrong. */
  open(stored: Record<string, unknown>, kid: string): Jwk {
    if (stored['sealed'] === undefined) return stored as Jwk;
    if (!this.key) throw new Error(`signing key ${kid} is encrypted: set the key encryption secret (AUTH_KEY_ENCRYPTION_SECRET)`);
    const sealed = stored as unknown as SealedJwk;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(sealed.iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64url'));
      const plain = Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64url')), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as Jwk;
    } catch {
      throw new Error(`signing key ${kid} cannot be decrypted: the key encryption secret (AUTH_KEY_ENCRYPTION_SECRET) is not the one it was stored with`);
    }
  }
}
