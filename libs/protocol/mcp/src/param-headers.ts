import { decodeMcpHeaderValue } from './headers';
import { isPlainObject } from './plain-object';

/** The schema keyword that mirrors a tool argument into an `Mcp-Param-<Name>` header (S-116). */
export const X_MCP_HEADER = 'x-mcp-header';

/** The prefix of the mirrored argument headers, lowercase as header names compare (S-116, S-119). */
export const MCP_PARAM_HEADER_PREFIX = 'mcp-param-';

/** The JSON Schema types a mirrored argument may have (S-117). */
export type ParamHeaderType = 'string' | 'integer' | 'boolean';

/** One `x-mcp-header` declaration of a tool's input schema. */
export interface ParamHeaderDeclaration {
  /** The name as declared (`Region` → header `Mcp-Param-Region`). */
  name: string;
  /** The property names from the schema root to the argument (`properties` chain). */
  path: string[];
  type: ParamHeaderType;
}

/** The declarations of a schema, or why the schema's declarations are invalid. */
export type ParamHeaderDeclarations = { ok: true; declarations: ParamHeaderDeclaration[] } | { ok: false; reason: string };

/** The outcome of checking a request's `Mcp-Param-*` headers against its arguments. */
export type ParamHeaderCheck = { ok: true } | { ok: false; message: string };

/** An RFC 9110 token (`1*tchar`): no spaces, controls or delimiters (S-117). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_TYPES: ReadonlySet<string> = new Set<ParamHeaderType>(['string', 'integer', 'boolean']);

/**
 * Keywords whose subschemas are not reached from the root through `properties` alone: an
 * `x-mcp-header` under any of them makes the declarations invalid (S-117).
 */
const SUBSCHEMA_KEYWORDS = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
] as const;
/** Of those, the keywords whose value maps names to subschemas. */
const NAMED_SUBSCHEMA_KEYWORDS: ReadonlySet<string> = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);

const where = (path: string[]): string => (path.length === 0 ? 'the schema root' : `property ${path.join('.')}`);

/**
 * Reads the `x-mcp-header` declarations of a tool's input schema and checks the rules a server must
 * follow for them (S-117): each is a non-empty HTTP token, unique ignoring case, on a `string`,
 * `integer` or `boolean` property reached from the root through `properties` only.
 */
export function readParamHeaderDeclarations(inputSchema: unknown): ParamHeaderDeclarations {
  const declarations: ParamHeaderDeclaration[] = [];
  const seen = new Map<string, string>();

  const declare = (schema: Record<string, unknown>, path: string[], reachable: boolean): string | undefined => {
    const name = schema[X_MCP_HEADER];
    if (!reachable || path.length === 0) return `${X_MCP_HEADER} at ${where(path)} is not on a property reached from the root through "properties" alone`;
    if (typeof name !== 'string' || name === '') return `${X_MCP_HEADER} of ${where(path)} must be a non-empty string`;
    if (!TOKEN.test(name)) return `${X_MCP_HEADER} ${JSON.stringify(name)} of ${where(path)} is not an HTTP token (letters, digits and !#$%&'*+-.^_\`|~ only)`;
    const type = schema['type'];
    if (typeof type !== 'string' || !HEADER_TYPES.has(type)) {
      return `${X_MCP_HEADER} ${JSON.stringify(name)} is on ${where(path)} of type ${JSON.stringify(type ?? null)}; only string, integer and boolean properties may carry it`;
    }
    const earlier = seen.get(name.toLowerCase());
    if (earlier !== undefined) return `${X_MCP_HEADER} ${JSON.stringify(name)} repeats ${JSON.stringify(earlier)} (names compare ignoring case)`;
    seen.set(name.toLowerCase(), name);
    declarations.push({ name, path, type: type as ParamHeaderType });
    return undefined;
  };

  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (!isPlainObject(node)) return undefined;
    if (Object.hasOwn(node, X_MCP_HEADER)) {
      const problem = declare(node, path, reachable);
      if (problem) return problem;
    }
    const properties = node['properties'];
    if (isPlainObject(properties)) {
      for (const [key, child] of Object.entries(properties)) {
        const problem = visit(child, [...path, key], reachable);
        if (problem) return problem;
      }
    }
    for (const keyword of SUBSCHEMA_KEYWORDS) {
      const value = node[keyword];
      if (value === undefined) continue;
      const branches = Array.isArray(value) ? value : NAMED_SUBSCHEMA_KEYWORDS.has(keyword) && isPlainObject(value) ? Object.values(value) : [value];
      for (const branch of branches) {
        const problem = visit(branch, [...path, `<${keyword}>`], false);
        if (problem) return problem;
      }
    }
    return undefined;
  };

  const problem = visit(inputSchema, [], true);
  return problem === undefined ? { ok: true, declarations } : { ok: false, reason: problem };
}

/** Leading and trailing optional whitespace of a field value (RFC 9110 §5.5: SP and HTAB). */
const OWS = /^[ \t]+|[ \t]+$/g;
/** A decimal number as a header may carry an integer (`42`, `-7`, `42.0`). */
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** An argument as its header carries it: strings as they are, numbers as JSON numbers, booleans as `true`/`false`. */
function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return JSON.stringify(value);
  return undefined;
}

function argumentAt(args: Record<string, unknown>, path: string[]): unknown {
  let node: unknown = args;
  for (const key of path) {
    if (!isPlainObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/**
 * Checks a `tools/call`'s `Mcp-Param-*` headers against its arguments (S-116), for each declaration:
 * an argument with a value needs its header, a header needs an argument with a value, and the header,
 * trimmed of whitespace and decoded (the `=?base64?…?=` form, S-114), must equal the argument as text
 * (a number compares as a number, so `42.0` matches `42`). `headers` are by lowercase name after the
 * `Mcp-Param-` prefix; headers no declaration names are left alone (S-120). The message names the header.
 */
export function checkParamHeaders(
  declarations: readonly ParamHeaderDeclaration[],
  args: Record<string, unknown>,
  headers: Readonly<Record<string, string>>,
): ParamHeaderCheck {
  for (const declaration of declarations) {
    const header = `Mcp-Param-${declaration.name}`;
    const key = declaration.name.toLowerCase();
    const raw = Object.hasOwn(headers, key) ? headers[key] : undefined;
    const value = argumentAt(args, declaration.path);
    const argument = declaration.path.join('.');
    if (value === undefined || value === null) {
      if (raw !== undefined) return { ok: false, message: `the ${header} header is present but the arguments carry no ${argument}` };
      continue;
    }
    if (raw === undefined) return { ok: false, message: `the ${header} header is required: the arguments carry ${argument}` };
    const decoded = decodeMcpHeaderValue(raw.replace(OWS, ''));
    if (!decoded.ok) return { ok: false, message: `the ${header} header is malformed: ${decoded.reason}` };
    const expected = headerText(value);
    const equal = typeof value === 'number' && DECIMAL.test(decoded.value) ? Number(decoded.value) === value : decoded.value === expected;
    if (!equal) return { ok: false, message: `the ${header} header does not match the argument ${argument}` };
  }
  return { ok: true };
}
