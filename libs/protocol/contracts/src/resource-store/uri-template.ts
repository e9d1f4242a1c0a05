/**
 * RFC 6570 level 1 (simple string expansion `{var}`) for resource templates (S-204): parsed once,
 * matched against a requested URI. Operators, prefixes and explode modifiers (levels 2-4) are refused
 * when the template is written, as are adjacent variables, which make a match ambiguous.
 */
export interface UriTemplate {
  readonly source: string;
  /** Variable names in order of appearance. */
  readonly variables: readonly string[];
  /** The literal text around the variables: one more part than there are variables (the first and last may be empty). */
  readonly literals: readonly string[];
}

const VARIABLE = /^[A-Za-z0-9_]+$/;
/** What a level-1 value never holds: an expansion percent-encodes every reserved character, so no / ? or #. */
const OUTSIDE_VALUES = new Set(['/', '?', '#']);

/** Parses a level-1 template; throws an `Error` saying what is wrong otherwise. */
export function parseUriTemplate(source: string): UriTemplate {
  const variables: string[] = [];
  const literals: string[] = [];
  let literal = '';
  let position = 0;
  let previousWasVariable = false;
  while (position < source.length) {
    const open = source.indexOf('{', position);
    const close = source.indexOf('}', position);
    if (close !== -1 && (open === -1 || close < open)) throw new Error(`unmatched "}" at ${close}`);
    if (open === -1) {
      literal += source.slice(position);
      break;
    }
    if (open > position) {
      literal += source.slice(position, open);
      previousWasVariable = false;
    }
    if (close === -1) throw new Error(`unclosed "{" at ${open}`);
    const name = source.slice(open + 1, close);
    if (!VARIABLE.test(name)) throw new Error(`unsupported expression {${name}}: only level-1 {name} variables of letters, digits and _`);
    if (variables.includes(name)) throw new Error(`variable {${name}} appears twice`);
    if (previousWasVariable) throw new Error(`adjacent variables before {${name}} make matching ambiguous`);
    variables.push(name);
    literals.push(literal);
    literal = '';
    previousWasVariable = true;
    position = close + 1;
  }
  literals.push(literal);
  if (variables.length === 0) throw new Error('a template has at least one {variable}');
  return { source, variables, literals };
}

/**
 * The variables' (percent-decoded) values when `uri` matches, else `undefined`. Where a separator may
 * also occur in values (`{owner}-{name}`), the earlier variables get the longest values that still
 * let the rest match, as the greedy pattern `^owner([^/?#]+)-([^/?#]+)$` would. Found without
 * backtracking, in time linear in the URI per variable (times the literals' lengths): the URI comes
 * from any caller, and a backtracking match of a few variables over a URI of repeated separators
 * takes hours.
 */
export function matchUriTemplate(template: UriTemplate, uri: string): Record<string, string> | undefined {
  const spans = matchSpans(template, uri);
  if (spans === undefined) return undefined;
  const values: Record<string, string> = {};
  for (const [index, name] of template.variables.entries()) {
    const [start, end] = spans[index] ?? [0, 0];
    try {
      values[name] = decodeURIComponent(uri.slice(start, end));
    } catch {
      return undefined;
    }
  }
  return values;
}

/** Each variable's `[start, end)` in `uri`, chosen greedily from the left; `undefined` when it does not match. */
function matchSpans(template: UriTemplate, uri: string): Array<[number, number]> | undefined {
  const { literals } = template;
  const count = template.variables.length;
  const length = uri.length;
  const [first = '', last = ''] = [literals[0], literals[count]];
  if (!uri.startsWith(first) || length < first.length + last.length + count) return undefined;
  // valueEnd[p]: where a value starting at p must end at the latest (the next / ? # or the URI's end).
  const valueEnd = new Int32Array(length + 1);
  valueEnd[length] = length;
  for (let position = length - 1; position >= 0; position--)
    valueEnd[position] = OUTSIDE_VALUES.has(uri[position] ?? '') ? position : (valueEnd[position + 1] ?? length);
  // fits[i][e]: variable i may end at e (its literal follows there, and everything after it matches);
  // latest[i][x]: the largest e <= x where it may, or -1. Filled from the last variable back.
  const latest: Int32Array[] = new Array<Int32Array>(count);
  let startsFollowing: Uint8Array | undefined;
  for (let index = count - 1; index >= 0; index--) {
    const following = literals[index + 1] ?? '';
    const mayEnd = new Int32Array(length + 1);
    let best = -1;
    for (let end = 0; end <= length; end++) {
      const next = end + following.length;
      const rest = index === count - 1 ? next === length : next <= length && startsFollowing?.[next] === 1;
      if (rest && uri.startsWith(following, end)) best = end;
      mayEnd[end] = best;
    }
    latest[index] = mayEnd;
    // startsFollowing[p]: variable `index` may start at p (a value of at least one character, then the rest).
    const starts = new Uint8Array(length + 1);
    for (let start = 0; start < length; start++) {
      const end = mayEnd[valueEnd[start] ?? start] ?? -1;
      starts[start] = end > start ? 1 : 0;
    }
    startsFollowing = starts;
  }
  const spans: Array<[number, number]> = [];
  let start = first.length;
  for (let index = 0; index < count; index++) {
    const end = latest[index]?.[valueEnd[start] ?? start] ?? -1;
    if (end <= start) return undefined;
    spans.push([start, end]);
    start = end + (literals[index + 1] ?? '').length;
  }
  return spans;
}
