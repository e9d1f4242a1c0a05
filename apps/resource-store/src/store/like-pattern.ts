/**
 * A `LIKE`/`ILIKE` pattern (with `ESCAPE '\'`) matching the text that starts with `prefix`: the
 * pattern characters `%` and `_`, and the escape character itself, stand for themselves in it.
 */
export function likePrefixPattern(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, '\\$&')}%`;
}
