import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { OAuthSecretsRepository } from './oauth-secrets.repository';

/** The secrets of the OAuth endpoints, loaded once per process. */
export interface OAuthSecrets {
  /** Keygrip keys that sign oidc-provider's cookies (the newest first). */
  cookieKeys: string[];
  /** The key of the per-interaction CSRF tokens of the sign-in and consent forms. */
  csrfKey: Buffer;
}

/**
 * Generates the cookie and CSRF keys once, stores them in the database and hands every replica the
 * same ones, so a browser's cookies and forms work whichever replica answers.
 */
@Injectable()
export class OAuthSecretsService {
  private loaded?: Promise<OAuthSecrets>;

  constructor(private readonly repository: OAuthSecretsRepository) {}

  secrets(): Promise<OAuthSecrets> {
    this.loaded ??= this.load().catch((error: unknown) => {
      this.loaded = undefined;
      throw error;
    });
    return this.loaded;
  }

  private async load(): Promise<OAuthSecrets> {
    const cookieKey = await this.repository.getOrCreate('cookie-key-1', randomBytes(32).toString('base64url'));
    const csrfKey = await this.repository.getOrCreate('csrf-key-1', randomBytes(32).toString('base64url'));
    return { cookieKeys: [cookieKey], csrfKey: Buffer.from(csrfKey, 'base64url') };
  }
}

/**
 * The CSRF token of one interaction's forms: an HMAC of the interaction's uid (spec S-150). The
 * interaction itself is bound to the browser by oidc-provider's interaction cookie, so a token valid
 * for this uid proves the form was rendered by us for this browser's flow.
 */
export function csrfTokenFor(key: Buffer, uid: string): string {
  return createHmac('sha256', key).update(`interaction-form:${uid}`).digest('base64url');
}

/** Whether `presented` is the CSRF token of the interaction, compared in constant time. */
export function isValidCsrfToken(key: Buffer, uid: string, presented: unknown): boolean {
  if (typeof presented !== 'string' || presented.length === 0 || presented.length > 128) return false;
  const expected = Buffer.from(csrfTokenFor(key, uid));
  const actual = Buffer.from(presented);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
