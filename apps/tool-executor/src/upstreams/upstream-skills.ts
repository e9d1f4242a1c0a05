import type { Client } from '@modelcontextprotocol/client';
import { SKILL_LIMITS, SkillSchema } from '@modelcontextprotocol/core/ext/skills';
import { z } from 'zod';
import { toolExecutor } from '@mcp-platform/protocol-contracts';
import { SKILLS_EXTENSION } from '@mcp-platform/protocol-mcp';
import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import type { JsonObject } from '../catalog/catalog.types';

/**
 * An upstream's skills (the skills extension, SEP-2640): read with `skills/list` when the upstream
 * declares the extension (in `server/discover`'s capabilities, or `initialize`'s for a 2025-era one),
 * pinned like its other items, served by the resource store beside the tenant's own skills.
 */

const SKILL_SCHEME = 'skill://';
const SKILL_MD = '/SKILL.md';

/** A `skills/list` page as the executor reads it: entries are checked one by one, not the page as a whole. */
const SkillsPageSchema = z.looseObject({ skills: z.array(z.unknown()).optional(), nextCursor: z.string().optional() });

/** A `resources/directory/read` page, its children checked by the contract the answer crosses the bus with. */
const DirectoryPageSchema = z.looseObject({ resources: z.array(z.unknown()).optional(), nextCursor: z.string().optional() });

/** Whether the upstream declared the skills extension. */
export function upstreamServesSkills(client: Client): boolean {
  return client.getServerCapabilities()?.extensions?.[SKILLS_EXTENSION] !== undefined;
}

/** One page of the upstream's `skills/list`. */
export async function listUpstreamSkills(client: Client, cursor: string | undefined): Promise<Record<string, unknown>> {
  return client.request({ method: 'skills/list', params: cursor === undefined ? {} : { cursor } }, SkillsPageSchema);
}

/**
 * Why an upstream's skill entry cannot be served, or `undefined`: not an entry of the extension's shape,
 * a URI that is not `skill://…/SKILL.md` of at most 2048 characters, or more files than the extension's
 * limit. The store checks the rest (every file under the skill's root, names taken).
 */
export function skillRefusal(definition: JsonObject): string | undefined {
  const uri = definition['uri'];
  if (
    typeof uri !== 'string' ||
    uri.length > 2048 ||
    !uri.startsWith(SKILL_SCHEME) ||
    !uri.endsWith(SKILL_MD) ||
    uri.length <= SKILL_SCHEME.length + SKILL_MD.length
  )
    return `its URI ${JSON.stringify(String(uri).slice(0, 200))} is not a skill://<skill-path>/SKILL.md URI of at most 2048 characters`;
  const parsed = SkillSchema.safeParse(definition);
  if (!parsed.success)
    return `its entry is not a skill entry: ${parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(entry)'}: ${issue.message}`)
      .join('; ')
      .slice(0, 500)}`;
  const files = parsed.data.resources;
  if (files !== 'dynamic' && files.length > SKILL_LIMITS.files) return `it lists ${files.length} files, over the ${SKILL_LIMITS.files} a skill may have`;
  return undefined;
}

/** The URIs of the files a pinned skill entry lists (none for a `dynamic` one). */
export function skillFileUris(entry: JsonObject): string[] {
  const files = entry['resources'];
  if (!Array.isArray(files)) return [];
  return files.flatMap((file) =>
    typeof file === 'object' && file !== null && typeof (file as JsonObject)['uri'] === 'string' ? [(file as JsonObject)['uri'] as string] : [],
  );
}

/**
 * Every child of the upstream's directory `uri`, its pages read in turn (at most 100 pages, at most
 * {@link toolExecutor.SKILL_DIRECTORY_MAX_CHILDREN} children, at most one bus message of JSON): past
 * one of those, `INVALID_PARAMS` rather than a directory cut short.
 */
export async function readUpstreamDirectory(client: Client, uri: string): Promise<unknown[]> {
  const children: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page += 1) {
    const result = await client.request(
      { method: 'resources/directory/read', params: { uri, ...(cursor === undefined ? {} : { cursor }) } },
      DirectoryPageSchema,
    );
    children.push(...(result.resources ?? []));
    if (children.length > toolExecutor.SKILL_DIRECTORY_MAX_CHILDREN) throw tooLarge(uri, `more than ${toolExecutor.SKILL_DIRECTORY_MAX_CHILDREN} children`);
    cursor = result.nextCursor;
    if (!cursor) {
      const size = JSON.stringify(children).length;
      if (size > toolExecutor.UPSTREAM_READ_MAX_BYTES) throw tooLarge(uri, `${size} bytes, over the ${toolExecutor.UPSTREAM_READ_MAX_BYTES} served`);
      return children;
    }
  }
  throw tooLarge(uri, 'more than 100 pages');
}

function tooLarge(uri: string, what: string): RpcError {
  return new RpcError(WireErrorCode.InvalidParams, `The upstream's directory ${uri.slice(0, 200)} has ${what}`);
}
