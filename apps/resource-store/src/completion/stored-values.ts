import { matchUriTemplate, type UriTemplate } from '../resources/uri-template';

/**
 * Most stored URIs one template-variable completion reads (in URI order). The store may hold any
 * number of resources under a template; a completion must stay cheap, so it scans at most this many
 * after narrowing by prefix, and says `hasMore` without a `total` when there were more.
 */
export const MAX_SCANNED_URIS = 1_000;

/**
 * RFC 3986 unreserved characters: a URI carries them as themselves (their percent-encoded form is not
 * canonical), so a value made of them appears verbatim in the URIs that hold it. Other characters may
 * be percent-encoded, so narrowing by text stops before the first of them.
 */
const LEADING_UNRESERVED = /^[A-Za-z0-9\-._~]*/;

/**
 * How the store narrows the URIs it reads for a completion: every URI starts with `startsWith`
 * (exactly), and with `startsWithIgnoringCase` in any ASCII case when that is given.
 */
export type StoredUriNarrowing = { startsWith: string; startsWithIgnoringCase?: string };

/**
 * The prefix every stored URI that can offer a value of `variable` starts with: the template's text
 * before its first variable, extended through each earlier variable whose value the context gives
 * (with the literal text after it), and then, case-insensitively, by what the user typed. Values
 * with characters that might be percent-encoded stop the extension there: a prefix that is too short
 * only reads more rows, never misses one (URIs written with unreserved characters percent-encoded,
 * which is not the canonical form, are the exception).
 */
export function storedUriNarrowing(template: UriTemplate, variable: string, typed: string, context: Record<string, string> = {}): StoredUriNarrowing {
  const literals = literalParts(template);
  let startsWith = literals[0] ?? '';
  for (const [index, name] of template.variables.entries()) {
    if (name === variable) {
      const typedPrefix = leadingUnreserved(typed);
      return typedPrefix === '' ? { startsWith } : { startsWith, startsWithIgnoringCase: startsWith + typedPrefix };
    }
    const given = context[name];
    if (given === undefined || leadingUnreserved(given) !== given) return { startsWith };
    startsWith += given + (literals[index + 1] ?? '');
  }
  return { startsWith };
}

/**
 * The values `variable` takes in the URIs that `template` matches, de-duplicated, in the URIs' order.
 * A URI counts only if each other variable of the template that the context names has exactly the
 * given value there (S-226: `context.arguments` are the already-resolved arguments).
 */
export function storedVariableValues(template: UriTemplate, variable: string, uris: readonly string[], context: Record<string, string> = {}): string[] {
  const constrained = template.variables.filter((name) => name !== variable && context[name] !== undefined);
  const values = new Set<string>();
  for (const uri of uris) {
    const match = matchUriTemplate(template, uri);
    const value = match?.[variable];
    if (match === undefined || value === undefined) continue;
    if (constrained.every((name) => match[name] === context[name])) values.add(value);
  }
  return [...values];
}

/** The literal text around the variables: one more part than there are variables (a part may be empty). */
function literalParts(template: UriTemplate): string[] {
  return template.source.split(/\{[A-Za-z0-9_]+\}/);
}

function leadingUnreserved(text: string): string {
  return LEADING_UNRESERVED.exec(text)?.[0] ?? '';
}
