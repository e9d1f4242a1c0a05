import { SKILL_URI_SCHEME as SCHEME } from '../resources/reserved-uris';

/**
 * Where a skill's files live (SEP-2640's resource mapping): `skill://<name>/<path>`, the skill's name
 * being the whole skill path (this platform serves each tenant's skills flat, without a prefix), its
 * root directory `skill://<name>` without a trailing slash. Path segments are percent-encoded, so a
 * file name with a space or a `#` is still one valid URI.
 */

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
