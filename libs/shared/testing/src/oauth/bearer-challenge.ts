import type { IncomingHttpHeaders } from 'node:http';

/** One challenge of a `WWW-Authenticate` header (RFC 9110 §11.6.1). */
export interface AuthChallenge {
  /** The scheme as sent (`Bearer`, `DPoP`, ...). */
  scheme: string;
  /** Auth-params by lower-case name, quoted-strings unescaped. */
  params: Record<string, string>;
  /** A token68 credential in place of params (rare for challenges). */
  token68?: string;
}

/** The `Bearer` challenge (RFC 6750 §3) with the parameters the MCP authorization spec uses. */
export interface BearerChallenge extends AuthChallenge {
  error?: string;
  errorDescription?: string;
  /** Space-separated scopes the resource asks for (S-135, S-142). */
  scope?: string;
  /** The Protected Resource Metadata URL (RFC 9728 §5.1, S-134). */
  resourceMetadata?: string;
  realm?: string;
}

/** Something carrying a `WWW-Authenticate` header: a fetch `Response`, a raw answer, or the header value. */
export type ChallengeSource = { headers: Headers } | { headers: IncomingHttpHeaders } | string | readonly string[] | undefined;

/**
 * Parses a `WWW-Authenticate` header into its challenges. Follows the RFC 9110 grammar: a scheme,
 * then either a token68 or comma-separated `name=value` params (token or quoted-string); a
 * following scheme starts the next challenge. Returns `[]` for a missing or empty header.
 */
export function parseAuthChallenges(header: string | readonly string[] | undefined): AuthChallenge[] {
  const text = Array.isArray(header) ? header.join(', ') : ((header as string | undefined) ?? '');
  const challenges: AuthChallenge[] = [];
  let position = 0;
  let current: AuthChallenge | undefined;

  const skip = (pattern: RegExp): void => {
    while (position < text.length && pattern.test(text.charAt(position))) position += 1;
  };
  const readToken = (): string => {
    const start = position;
    while (position < text.length && /[!#$%&'*+\-.^_`|~0-9A-Za-z]/.test(text.charAt(position))) position += 1;
    return text.slice(start, position);
  };
  const readQuoted = (): string => {
    // Opening quote already at `position`.
    position += 1;
    let value = '';
    while (position < text.length) {
      const character = text.charAt(position);
      if (character === '\\' && position + 1 < text.length) {
        value += text.charAt(position + 1);
        position += 2;
        continue;
      }
      if (character === '"') {
        position += 1;
        break;
      }
      value += character;
      position += 1;
    }
    return value;
  };

  while (position < text.length) {
    skip(/[\s,]/);
    if (position >= text.length) break;
    const token = readToken();
    if (token === '') {
      // Garbage: skip one character so a malformed header cannot loop forever.
      position += 1;
      continue;
    }
    const afterToken = position;
    skip(/[ \t]/);
    if (text.charAt(position) === '=' && current !== undefined) {
      position += 1;
      skip(/[ \t]/);
      current.params[token.toLowerCase()] = text.charAt(position) === '"' ? readQuoted() : readToken();
      continue;
    }
    position = afterToken;
    // A new challenge: `scheme` alone, `scheme token68`, or `scheme param=...`.
    current = { scheme: token, params: {} };
    challenges.push(current);
    skip(/[ \t]/);
    // A token68 is followed by the end or a comma; `name=value` (an auth-param) is not one.
    const token68 = /^[A-Za-z0-9\-._~+/]+=*(?=[ \t]*(,|$))/.exec(text.slice(position));
    if (token68) {
      current.token68 = token68[0];
      position += token68[0].length;
    }
  }
  return challenges;
}

/** The `Bearer` challenge of a response or header value, or `undefined` when there is none. */
export function bearerChallenge(source: ChallengeSource): BearerChallenge | undefined {
  const header = headerValue(source);
  const bearer = parseAuthChallenges(header).find((challenge) => challenge.scheme.toLowerCase() === 'bearer');
  if (bearer === undefined) return undefined;
  const { params } = bearer;
  return {
    ...bearer,
    ...(params['error'] === undefined ? {} : { error: params['error'] }),
    ...(params['error_description'] === undefined ? {} : { errorDescription: params['error_description'] }),
    ...(params['scope'] === undefined ? {} : { scope: params['scope'] }),
    ...(params['resource_metadata'] === undefined ? {} : { resourceMetadata: params['resource_metadata'] }),
    ...(params['realm'] === undefined ? {} : { realm: params['realm'] }),
  };
}

function headerValue(source: ChallengeSource): string | readonly string[] | undefined {
  if (source === undefined || typeof source === 'string' || Array.isArray(source)) return source as string | readonly string[] | undefined;
  const headers = (source as { headers: Headers | IncomingHttpHeaders }).headers;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get('www-authenticate') ?? undefined;
  return (headers as IncomingHttpHeaders)['www-authenticate'];
}
