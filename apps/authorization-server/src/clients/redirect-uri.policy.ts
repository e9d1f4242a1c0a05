/** Host names of the loopback interface as they appear in URLs (IPv6 with brackets). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The two client kinds of OpenID Connect Registration / RFC 8252 (S-168). */
export type ApplicationType = 'web' | 'native';

/** Whether the URI points at the loopback interface (a client on the user's own machine). */
export function isLoopbackUri(uri: string): boolean {
  try {
    return LOOPBACK_HOSTS.has(new URL(uri).hostname);
  } catch {
    return false;
  }
}

/**
 * Why a redirect URI may not be registered, or `undefined` when it may (S-170: only `https` or
 * loopback `http`; RFC 8252 for native apps). Web clients: `https`, or `http` on a loopback host.
 * Native clients: `http` on a loopback host, `https`, or a private-use scheme in reverse-domain form
 * (`com.example.app:/callback`). Never a fragment, never credentials.
 */
export function redirectUriProblem(uri: string, applicationType: ApplicationType): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri} is not a URL`;
  }
  if (url.hash || uri.includes('#')) return `${uri} must not contain a fragment`;
  if (url.username || url.password) return `${uri} must not contain credentials`;
  const loopback = LOOPBACK_HOSTS.has(url.hostname);
  switch (url.protocol) {
    case 'https:':
      return undefined;
    case 'http:':
      return loopback ? undefined : `${uri}: http redirect URIs are allowed only on a loopback host (localhost, 127.0.0.1, [::1]); use https`;
    default:
      if (applicationType === 'native' && url.protocol.slice(0, -1).includes('.')) return undefined;
      return applicationType === 'native'
        ? `${uri}: a native client's private-use scheme must be in reverse-domain form (e.g. com.example.app:/callback)`
        : `${uri}: a web client's redirect URIs must use https (or http on a loopback host)`;
  }
}
