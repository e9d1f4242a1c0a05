/**
 * RFC 6570 level 1 (simple string expansion `{var}`) for resource templates (S-204): parsed once,
 * matched against a requested URI. Operators, prefixes and explode modifiers (levels 2-4) are refused
 * when the template is written, as are adjacent variables, which make a match ambiguous.
 */
export interface UriTemplate {
  readonly source: string;
  /** Variable names in order of appearance. */
  readonly variables: readonly string[];
  readonly pattern: RegExp;
}

const VARIABLE = /^[A-Za-z0-9_]+$/;

/** Parses a level-1 template; throws an `Error` saying what is wrong otherwise. */
export function parseUriTemplate(source: string): UriTemplate {
  const variables: string[] = [];
  let pattern = '^';
  let position = 0;
  let previousWasVariable = false;
  while (position < source.length) {
    const open = source.indexOf('{', position);
    const close = source.indexOf('}', position);
    if (close !== -1 && (open === -1 || close < open)) throw new Error(`unmatched "}" at ${close}`);
    if (open === -1) {
      pattern += escapeRegExp(source.slice(position));
      break;
    }
    if (open > position) {
      pattern += escapeRegExp(source.slice(position, open));
      previousWasVariable = false;
    }
    if (close === -1) throw new Error(`unclosed "{" at ${open}`);
    const name = source.slice(open + 1, close);
    if (!VARIABLE.test(name)) throw new Error(`unsupported expression {${name}}: only level-1 {name} variables of letters, digits and _`);
    if (variables.includes(name)) throw new Error(`variable {${name}} appears twice`);
    if (previousWasVariable) throw new Error(`adjacent variables before {${name}} make matching ambiguous`);
    variables.push(name);
    // A level-1 expansion percent-encodes every reserved character, so a value holds no / ? or #.
    pattern += '([^/?#]+)';
    previousWasVariable = true;
    position = close + 1;
  }
  if (variables.length === 0) throw new Error('a template has at least one {variable}');
  return { source, variables, pattern: new RegExp(`${pattern}$`) };
}

/** The variables' (percent-decoded) values when `uri` matches, else `undefined`. */
export function matchUriTemplate(template: UriTemplate, uri: string): Record<string, string> | undefined {
  const match = template.pattern.exec(uri);
  if (!match) return undefined;
  const values: Record<string, string> = {};
  for (const [index, name] of template.variables.entries()) {
    try {
      values[name] = decodeURIComponent(match[index + 1] ?? '');
    } catch {
      return undefined;
    }
  }
  return values;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
