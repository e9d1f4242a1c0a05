import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { compare } from 'fast-json-patch';
import { toolExecutor } from '@mcp-platform/protocol-contracts';
import type { JsonObject } from '../catalog/catalog.types';

/** What an upstream may list before the executor stops reading its catalog (a hostile upstream lists 100,000 tools). */
export const UPSTREAM_LIMITS = {
  /** Tools per source; past it the rest are not read and the source is `degraded`. */
  maxTools: 1_000,
  /** One definition in canonical JSON; a bigger one is `refused`. */
  maxDefinitionBytes: 128 * 1024,
  /** Nesting of a definition's objects and arrays; a deeper one is `refused`. */
  maxDepth: 32,
  /** Every definition of a source together; past it the rest are not read. */
  maxCatalogBytes: 8 * 1024 * 1024,
} as const;

/**
 * The fields of each kind of upstream item that are pinned: what a client reads and the model acts on.
 * A resource's `size` is not: it changes with the content, which a pin does not cover (reads go to the
 * upstream each time). A skill's are: its entry names every file with its digest, so a skill whose
 * files changed upstream is a changed skill (`held-changed` until approved, as a changed tool).
 */
const PINNED_FIELDS: Record<toolExecutor.UpstreamItemKind, readonly string[]> = {
  tool: ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', 'execution'],
  prompt: ['name', 'title', 'description', 'arguments'],
  resource: ['uri', 'name', 'title', 'description', 'mimeType', 'annotations'],
  'resource-template': ['name', 'title', 'description', 'uriTemplate', 'mimeType', 'annotations'],
  skill: ['uri', 'frontmatter', 'resources'],
};

/** The part of an upstream item that is pinned (see {@link PINNED_FIELDS}). */
export function pinnedDefinition(item: Record<string, unknown>, kind: toolExecutor.UpstreamItemKind = 'tool'): JsonObject {
  return Object.fromEntries(PINNED_FIELDS[kind].filter((field) => item[field] !== undefined).map((field) => [field, item[field]]));
}

/** How an item names itself: a resource by its URI, a skill by its `SKILL.md` URI, anything else by its name. */
export function itemName(kind: toolExecutor.UpstreamItemKind, item: Record<string, unknown>): unknown {
  return keepsUri(kind) ? item['uri'] : item['name'];
}

/** `sha256:<hex>` of the definition in RFC 8785 canonical JSON: the same definition, the same digest, whatever its key order. */
export function definitionDigest(definition: JsonObject): string {
  return `sha256:${createHash('sha256')
    .update(canonicalize(definition) ?? '')
    .digest('hex')}`;
}

/** What changed from the approved definition to the observed one, as RFC 6902 JSON Patch operations. */
export function definitionDiff(approved: JsonObject, observed: JsonObject): Array<{ op: string; path: string; value?: unknown; from?: string }> {
  return compare(approved, observed);
}

/** Why a definition cannot be served as it is, or `undefined`: too big or too deeply nested. */
export function definitionRefusal(definition: JsonObject): string | undefined {
  const size = Buffer.byteLength(canonicalize(definition) ?? '', 'utf8');
  if (size > UPSTREAM_LIMITS.maxDefinitionBytes) return `its definition is ${size} bytes, over the limit of ${UPSTREAM_LIMITS.maxDefinitionBytes}`;
  if (depthOf(definition, 0) > UPSTREAM_LIMITS.maxDepth) return `its definition nests deeper than ${UPSTREAM_LIMITS.maxDepth} levels`;
  return undefined;
}

/**
 * The name clients see: `<prefix>__<name>`, or the upstream's own name without a prefix. A resource
 * and a skill keep their URI (links in results, other resources and a skill's own files name it).
 */
export function exposedName(prefix: string | null, name: string, kind: toolExecutor.UpstreamItemKind = 'tool'): string {
  return prefix === null || keepsUri(kind) ? name : `${prefix}${toolExecutor.UPSTREAM_PREFIX_SEPARATOR}${name}`;
}

function keepsUri(kind: toolExecutor.UpstreamItemKind): boolean {
  return kind === 'resource' || kind === 'skill';
}

function depthOf(value: unknown, depth: number): number {
  if (depth > UPSTREAM_LIMITS.maxDepth) return depth;
  if (value === null || typeof value !== 'object') return depth;
  let deepest = depth + 1;
  for (const nested of Object.values(value)) deepest = Math.max(deepest, depthOf(nested, depth + 1));
  return deepest;
}
