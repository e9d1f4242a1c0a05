/**
 * How many URIs one legacy session, or one modern `subscriptions/listen` request, may subscribe to at
 * once; one more is `-32602` (keeps the session and the listen registry small).
 */
export const MAX_SUBSCRIPTIONS_PER_SESSION = 1_000;

/** The longest URI one may subscribe to, the resource store's own bound on URIs. */
export const MAX_SUBSCRIPTION_URI_LENGTH = 2_048;

/**
 * The most characters all of a session's subscribed URIs may add up to: a thousand long URIs would
 * otherwise make the session entry larger than a NATS message (1 MiB by default) and unwritable.
 */
export const MAX_SUBSCRIPTION_CHARACTERS = 256 * 1_024;

/** A URI starts with a scheme (RFC 3986 §3.1); nothing else is checked, the store decides what exists. */
const URI_WITH_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/;

/**
 * Whether a `resources/subscribe` URI may be kept (S-205): no longer than {@link MAX_SUBSCRIPTION_URI_LENGTH}
 * and starting with a URI scheme. Whether a resource of that URI exists is not asked: the spec leaves it to
 * the server, a resource may appear after the subscription, and a URI nothing publishes simply never gets a
 * notification.
 */
export function isSubscribableUri(uri: string): boolean {
  return uri.length <= MAX_SUBSCRIPTION_URI_LENGTH && URI_WITH_SCHEME.test(uri);
}

/**
 * The session's subscriptions with `uri` added: `undefined` when it is there already (subscribing
 * twice is one subscription), `'full'` when the session holds {@link MAX_SUBSCRIPTIONS_PER_SESSION}
 * or the URIs would add up to more than {@link MAX_SUBSCRIPTION_CHARACTERS}.
 */
export function withSubscription(current: readonly string[] | undefined, uri: string): string[] | 'full' | undefined {
  const subscriptions = current ?? [];
  if (subscriptions.includes(uri)) return undefined;
  if (subscriptions.length >= MAX_SUBSCRIPTIONS_PER_SESSION) return 'full';
  if (subscriptions.reduce((total, held) => total + held.length, uri.length) > MAX_SUBSCRIPTION_CHARACTERS) return 'full';
  return [...subscriptions, uri];
}

/** The session's subscriptions without `uri`, or `undefined` when it was not subscribed (a no-op, not an error). */
export function withoutSubscription(current: readonly string[] | undefined, uri: string): string[] | undefined {
  const subscriptions = current ?? [];
  return subscriptions.includes(uri) ? subscriptions.filter((candidate) => candidate !== uri) : undefined;
}
