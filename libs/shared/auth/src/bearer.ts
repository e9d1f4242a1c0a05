/** The error codes of a Bearer challenge (RFC 6750 §3.1). */
export type BearerErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

/** The parameters of a `WWW-Authenticate: Bearer` challenge; each is optional. */
export interface BearerChallengeParameters {
  /** URL of the Protected Resource Metadata document (RFC 9728 §5.1, S-134). */
  resourceMetadata?: string;
  /** The scopes the request needs (S-135, S-142), as a list or a space-separated value. */
  scope?: string | readonly string[];
  error?: BearerErrorCode;
  /** Human-readable, safe to show; characters RFC 6750 does not allow are replaced. */
  errorDescription?: string;
}

/**
 * The `WWW-Authenticate` value of a Bearer challenge, e.g.
 * `Bearer resource_metadata="https://…", scope="mcp", error="invalid_token", error_description="…"`.
 * Every value is a quoted-string (RFC 7235 §2.1): `"` and `\` are escaped, and characters outside
 * printable ASCII are replaced, so nothing a caller influenced can break the header (or add one).
 */
export function bearerChallenge(parameters: BearerChallengeParameters = {}): string {
  const attributes: string[] = [];
  if (parameters.resourceMetadata !== undefined) attributes.push(`resource_metadata=${quote(parameters.resourceMetadata)}`);
  if (parameters.scope !== undefined) {
    const scope = typeof parameters.scope === 'string' ? parameters.scope : parameters.scope.join(' ');
    // RFC 6750 §3: scope tokens use %x21 / %x23-5B / %x5D-7E, separated by single spaces.
    attributes.push(`scope=${quote(restrictToRfc6750(scope))}`);
  }
  if (parameters.error !== undefined) attributes.push(`error=${quote(parameters.error)}`);
  if (parameters.errorDescription !== undefined) {
    // RFC 6750 §3: error_description excludes `"` and `\` outright, so they are replaced rather than escaped.
    attributes.push(`error_description=${quote(restrictToRfc6750(parameters.errorDescription))}`);
  }
  return attributes.length === 0 ? 'Bearer' : `Bearer ${attributes.join(', ')}`;
}

/** `Bearer <token68>` (RFC 6750 §2.1, RFC 7235 §2.1); the scheme is case-insensitive. */
const BEARER_CREDENTIALS = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The bearer token of an `Authorization` header: `undefined` when there is no header, `'malformed'`
 * when there is one but it is not exactly `Bearer <token68>` (another scheme, an empty or repeated
 * value, stray characters). A JWT always contains dots, so no real token equals `'malformed'`.
 */
export function parseBearerAuthorization(header: string | readonly string[] | undefined): string | undefined | 'malformed' {
  if (header === undefined) return undefined;
  if (typeof header !== 'string') return 'malformed';
  const match = BEARER_CREDENTIALS.exec(header.trim());
  return match?.[1] ?? 'malformed';
}

function quote(value: string): string {
  return `"${printableAscii(value).replace(/[\\"]/g, (character) => `\\${character}`)}"`;
}

function printableAscii(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, '?');
}

function restrictToRfc6750(value: string): string {
  return printableAscii(value).replace(/"/g, "'").replace(/\\/g, '/');
}
