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

/** The part of an upstream tool that is pinned: what a client reads and the model acts on. */
export function pinnedDefinition(tool: Record<string, unknown>): JsonObject {
  const fields = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', 'execution'] as const;
  return Object.fromEntries(fields.filter((field) => tool[field] !== undefined).map((field) => [field, tool[field]]));
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

/** The name clients see: `<prefix>__<name>`, or the upstream's own name without a prefix. */
export function exposedName(prefix: string | null, name: string): string {
  return prefix === null ? name : `${prefix}${toolExecutor.UPSTREAM_PREFIX_SEPARATOR}${name}`;
}

function depthOf(value: unknown, depth: number): number {
  if (depth > UPSTREAM_LIMITS.maxDepth) return depth;
  if (value === null || typeof value !== 'object') return depth;
  let deepest = depth + 1;
  for (const nested of Object.values(value)) deepest = Math.max(deepest, depthOf(nested, depth + 1));
  return deepest;
}
