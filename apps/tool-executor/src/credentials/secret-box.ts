import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** A secret as stored: AES-256-GCM under the box's key, bound to what it is for (`context`). */
export interface SealedSecret {
  sealed: 'A256GCM';
  iv: string;
  tag: string;
  ciphertext: string;
}

const INFO = 'mcp-platform tool-executor secrets v1';

/** Raised when a secret must be stored and the operator set no key, or a stored one cannot be opened. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/**
 * Seals the secrets tenants give their tool sources (upstream headers, query parameters, client secrets,
 * secret stdio parameters) with a key derived (HKDF-SHA256) from the operator's `TOOL_SECRETS_KEY`. Each
 * secret is bound to its context (tenant, source, reference) as additional data, so a sealed value
 * copied to another row does not open. No key: nothing secret can be stored, and saying so is the
 * operator's cue. The credential vault (issue 16) replaces the key source by envelope keys per tenant.
 */
export class SecretBox {
  private readonly key: Buffer | undefined;

  constructor(secret: string | undefined) {
    this.key = secret ? Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), INFO, 32)) : undefined;
  }

  get configured(): boolean {
    return this.key !== undefined;
  }

  seal(plain: string, context: string): SealedSecret {
    const key = this.requireKey();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return { sealed: 'A256GCM', iv: iv.toString('base64url'), tag: cipher.getAuthTag().toString('base64url'), ciphertext: ciphertext.toString('base64url') };
  }

  open(sealed: SealedSecret, context: string): string {
    const key = this.requireKey();
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError(`a stored secret (${context}) cannot be opened: TOOL_SECRETS_KEY is not the key it was sealed with`);
    }
  }

  private requireKey(): Buffer {
    if (!this.key) throw new SecretBoxError('secrets cannot be stored: the operator has not set TOOL_SECRETS_KEY on the tool executor');
    return this.key;
  }
}
