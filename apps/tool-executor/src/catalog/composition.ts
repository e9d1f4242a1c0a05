import type { CatalogTool, CatalogVirtualServer, JsonObject, ToolPresentation } from './catalog.types';
import { compileSchema } from './schema-validator';

/**
 * Composition (issue 15 §3): which tools a virtual server exposes, under which names, and how each is
 * presented. Pure functions: the catalog service applies them to its snapshot, the catalog admin
 * applies the same ones to refuse a definition before it is stored.
 */

/** One tool a server exposes: its exposed name, the catalog tool behind it, its presentation, and where the server's definition asked for it. */
export interface Exposure {
  name: string;
  tool: string;
  presentation?: ToolPresentation;
  /** For administrators: `tools entry "x"`, `tools pick of "x" as "y"`, `source "gh" (tool "gh__x")`. */
  origin: string;
}

/** Two entries of a server asking for the same exposed name: the first keeps it. */
export interface NameCollision {
  name: string;
  kept: string;
  refused: string;
}

/** What a server's entries expose, in order (plain names, picks, then source tools), and the entries that lost a name to an earlier one. */
export interface ExposurePlan {
  exposures: Exposure[];
  collisions: NameCollision[];
}

/** Plans what a server exposes. `sourceTools(id)`: the catalog names of the source's tools (held and disabled ones included). */
export function planExposures(
  server: Pick<CatalogVirtualServer, 'toolNames' | 'picks' | 'sources'>,
  sourceTools: (sourceId: string) => string[],
): ExposurePlan {
  const exposures: Exposure[] = [];
  const collisions: NameCollision[] = [];
  const taken = new Map<string, Exposure>();
  const add = (exposure: Exposure): void => {
    const earlier = taken.get(exposure.name);
    if (earlier) {
      collisions.push({ name: exposure.name, kept: earlier.origin, refused: exposure.origin });
      return;
    }
    taken.set(exposure.name, exposure);
    exposures.push(exposure);
  };
  for (const name of server.toolNames) add({ name, tool: name, origin: `tools entry "${name}"` });
  for (const pick of server.picks ?? []) {
    add({
      name: pick.name,
      tool: pick.tool,
      presentation: pick.presentation,
      origin: `tools pick of "${pick.tool}"${pick.name === pick.tool ? '' : ` as "${pick.name}"`}`,
    });
  }
  // An explicit entry of a source's tool wins over the source's entry (e.g. to rename it).
  const picked = new Set(exposures.map((exposure) => exposure.tool));
  for (const source of server.sources ?? []) {
    const hidden = new Set(source.hidden);
    for (const tool of [...sourceTools(source.sourceId)].sort()) {
      if (hidden.has(tool) || picked.has(tool)) continue;
      add({ name: tool, tool, origin: `source "${source.source}" (tool "${tool}")` });
    }
  }
  return { exposures, collisions };
}

/** An administrator's message for a collision. */
export function describeCollision(server: string, collision: NameCollision): string {
  return `Virtual server ${server} would expose two tools named ${collision.name}: ${collision.kept} and ${collision.refused}; give one of them another name`;
}

/**
 * Why a presentation's fixed and default arguments do not fit the tool's input schema, or `undefined`:
 * each must be a property of the schema (`properties`), with a value that validates against that
 * property's schema; a name may not be both fixed and defaulted.
 */
export function presentationRefusal(tool: Pick<CatalogTool, 'name' | 'inputSchema'>, presentation: ToolPresentation): string | undefined {
  const fixed = presentation.fixedArguments ?? {};
  const defaults = presentation.defaultArguments ?? {};
  const properties = isObject(tool.inputSchema['properties']) ? tool.inputSchema['properties'] : {};
  for (const [kind, values] of [
    ['fixed', fixed],
    ['default', defaults],
  ] as const) {
    for (const [name, value] of Object.entries(values)) {
      if (kind === 'default' && Object.hasOwn(fixed, name)) return `argument ${name} of ${tool.name} is both fixed and defaulted`;
      if (!Object.hasOwn(properties, name)) return `${kind} argument ${name}: ${tool.name} has no such argument (not a property of its input schema)`;
      const problem = propertyRefusal(tool.inputSchema, properties[name], value);
      if (problem) return `${kind} argument ${name} of ${tool.name}: ${problem}`;
    }
  }
  return undefined;
}

/** Whether `value` fits the property's schema; the root's `$defs`/`definitions` and `$schema` go along so `$ref`s still resolve. */
function propertyRefusal(root: JsonObject, property: unknown, value: unknown): string | undefined {
  if (property === true) return undefined;
  if (property === false) return 'the input schema allows no value';
  if (!isObject(property)) return undefined;
  const schema: JsonObject = {
    ...(root['$schema'] === undefined ? {} : { $schema: root['$schema'] }),
    ...(root['$defs'] === undefined ? {} : { $defs: root['$defs'] }),
    ...(root['definitions'] === undefined ? {} : { definitions: root['definitions'] }),
    ...property,
  };
  try {
    const invalid = compileSchema(schema, 'the property').validate(value);
    return invalid === undefined ? undefined : `the value does not match its schema: ${invalid}`;
  } catch (error) {
    return `its schema cannot be checked: ${(error as Error).message}`;
  }
}

/**
 * The input schema clients see: fixed arguments gone (property and `required`), default arguments
 * kept with `default` set to the value and out of `required`. The tool's own schema is not touched.
 */
export function presentedInputSchema(inputSchema: JsonObject, presentation: ToolPresentation): JsonObject {
  const fixed = Object.keys(presentation.fixedArguments ?? {});
  const defaults = Object.entries(presentation.defaultArguments ?? {});
  if (fixed.length === 0 && defaults.length === 0) return inputSchema;
  const schema = structuredClone(inputSchema);
  const properties = isObject(schema['properties']) ? schema['properties'] : undefined;
  if (properties) {
    for (const name of fixed) delete properties[name];
    for (const [name, value] of defaults) {
      const property = properties[name];
      properties[name] = isObject(property) ? { ...property, default: value } : { default: value };
    }
  }
  if (Array.isArray(schema['required'])) {
    const settled = new Set([...fixed, ...defaults.map(([name]) => name)]);
    const required = (schema['required'] as unknown[]).filter((name) => typeof name !== 'string' || !settled.has(name));
    if (required.length) schema['required'] = required;
    else delete schema['required'];
  }
  return schema;
}

/** The arguments a call runs with, or why they are refused (a fixed argument sent by the client). */
export type ComposedArguments = { ok: true; arguments: Record<string, unknown> } | { ok: false; argument: string; message: string };

/** Merges a presentation's arguments into a call's: the client's own, then the defaults it omitted, then the fixed ones (which it may not send). */
export function composeArguments(
  presentation: Pick<ToolPresentation, 'fixedArguments' | 'defaultArguments'>,
  args: Record<string, unknown>,
): ComposedArguments {
  const fixed = presentation.fixedArguments ?? {};
  for (const name of Object.keys(fixed)) {
    if (Object.hasOwn(args, name)) return { ok: false, argument: name, message: `argument ${name} is fixed by this server` };
  }
  const defaults = presentation.defaultArguments ?? {};
  const missing = Object.entries(defaults).filter(([name]) => !Object.hasOwn(args, name) || args[name] === undefined);
  if (missing.length === 0 && Object.keys(fixed).length === 0) return { ok: true, arguments: args };
  return { ok: true, arguments: { ...args, ...Object.fromEntries(missing.map(([name, value]) => [name, structuredClone(value)])), ...structuredClone(fixed) } };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
