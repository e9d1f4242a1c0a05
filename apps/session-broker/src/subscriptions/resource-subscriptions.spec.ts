import { describe, expect, it } from 'vitest';
import {
  isSubscribableUri,
  MAX_SUBSCRIPTION_CHARACTERS,
  MAX_SUBSCRIPTION_URI_LENGTH,
  MAX_SUBSCRIPTIONS_PER_SESSION,
  withoutSubscription,
  withSubscription,
} from './resource-subscriptions';

describe('resource subscriptions', () => {
  describe('isSubscribableUri', () => {
    it('accepts any URI with a scheme, known to the store or not', () => {
      expect(isSubscribableUri('test://watched-resource')).toBe(true);
      expect(isSubscribableUri('file:///docs/a.txt')).toBe(true);
      expect(isSubscribableUri(`demo://${'a'.repeat(MAX_SUBSCRIPTION_URI_LENGTH - 7)}`)).toBe(true);
    });

    it('refuses an empty, scheme-less, spaced or overlong uri', () => {
      for (const uri of ['', 'no-scheme', '//host/x', 'demo://a b', `demo://${'a'.repeat(MAX_SUBSCRIPTION_URI_LENGTH)}`]) {
        expect(isSubscribableUri(uri), uri.slice(0, 40)).toBe(false);
      }
    });
  });

  describe('withSubscription', () => {
    it('adds a new uri, keeps one copy of a repeated one, and refuses one more than the bound', () => {
      expect(withSubscription(undefined, 'demo://a')).toEqual(['demo://a']);
      expect(withSubscription(['demo://a'], 'demo://b')).toEqual(['demo://a', 'demo://b']);
      expect(withSubscription(['demo://a'], 'demo://a')).toBeUndefined();
      const full = Array.from({ length: MAX_SUBSCRIPTIONS_PER_SESSION }, (_, index) => `demo://r/${index}`);
      expect(withSubscription(full, 'demo://one-more')).toBe('full');
      expect(withSubscription(full, 'demo://r/7')).toBeUndefined();
    });

    it('refuses a uri that would take the URIs past the character bound, so the session stays writable', () => {
      const long = (index: number) => `demo://${String(index).padStart(4, '0')}/${'x'.repeat(MAX_SUBSCRIPTION_URI_LENGTH - 12)}`;
      const held = Array.from({ length: Math.floor(MAX_SUBSCRIPTION_CHARACTERS / MAX_SUBSCRIPTION_URI_LENGTH) }, (_, index) => long(index));
      expect(held.reduce((total, uri) => total + uri.length, 0)).toBeLessThanOrEqual(MAX_SUBSCRIPTION_CHARACTERS);
      expect(withSubscription(held, long(9_999))).toBe('full');
      expect(withSubscription(held.slice(1), long(9_999))).toHaveLength(held.length);
    });
  });

  describe('withoutSubscription', () => {
    it('removes a subscribed uri and leaves nothing to write for one never subscribed', () => {
      expect(withoutSubscription(['demo://a', 'demo://b'], 'demo://a')).toEqual(['demo://b']);
      expect(withoutSubscription(['demo://a'], 'demo://z')).toBeUndefined();
      expect(withoutSubscription(undefined, 'demo://z')).toBeUndefined();
    });
  });
});
