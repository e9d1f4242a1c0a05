import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';

/**
 * Where a skill's files live (SEP-2640's resource mapping): `skill://<name>/<path>`, the skill's name
 * being the whole skill path (this platform serves each tenant's skills flat, without a prefix), its
 * root directory `skill://<name>` without a trailing slash. Path segments are percent-encoded, so a
 * file name with a space or a `#` is still one valid URI.
 */
const SCHEME = 'skill://';

export function skillRootUri(name: string): string {
  return `${SCHEME}${name}`;
}

export function skillFileUri(name: string, path: string): string {
  return `${SCHEME}${name}/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * The skill name and the path inside the skill a `skill://` URI names (`''` for the root), or
 * `undefined` for another scheme, a malformed escape or a trailing slash.
 */
export function parseSkillUri(uri: string): { name: string; path: string } | undefined {
  if (!uri.startsWith(SCHEME)) return undefined;
  const [name, ...segments] = uri.slice(SCHEME.length).split('/');
  if (!name) return undefined;
  try {
    const decoded = segments.map(decodeURIComponent);
    if (decoded.some((segment) => segment === '')) return undefined;
    return { name, path: decoded.join('/') };
  } catch {
    return undefined;
  }
}

/**
 * Refuses a plain resource write at a `skill://` URI: those are a skill's files, written and removed
 * only with their skill (`INVALID_PARAMS` with the path in `data.issues`, as for a bad definition).
 */
export function refuseSkillUri(uri: string): void {
  if (!uri.startsWith(SCHEME)) return;
  const message = 'skill:// URIs are the files of skills: upload or delete the skill through the skills API instead';
  throw new RpcError(WireErrorCode.InvalidParams, `${uri}: ${message}`, { issues: [{ path: ['uri'], message }] });
}
