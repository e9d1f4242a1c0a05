import { SKILL_URI_SCHEME } from '../resources/reserved-uris';
import type { SkillFileRecord } from '../skills/skill.entity';
import { mediaTypeOf, SKILL_MD } from '../skills/skill-manifest';
import type { JsonObject, UpstreamOrigin } from '../store/store.types';

/**
 * The skills part of `putUpstreamItems` (SEP-2640 through an upstream source), decided without the
 * database: which of the source's skills are served, and the resource rows of their files. A skill
 * keeps its URIs as the upstream gave them; its row is named by its skill path (`skill://<path>/SKILL.md`),
 * the key its collisions are judged by, as a resource's are by its URI.
 */

type SkillEntryItem = {
  skill: { uri: string; frontmatter: Record<string, unknown>; resources: Array<{ uri: string; digest: string; size: number }> | 'dynamic' };
};
type ListedResource = { uri: string; name: string; title?: string; description?: string; mimeType?: string; annotations?: unknown; icons?: unknown };

/** An upstream skill's row (its files are upstream resource rows: reads go to the executor). */
export interface UpstreamSkillRow {
  /** The skill path: the URI of its `SKILL.md` without `skill://` and `/SKILL.md`. */
  name: string;
  frontmatter: JsonObject;
  files: SkillFileRecord[];
  size: number;
  servers: string[];
  upstream: UpstreamOrigin;
}

/** One file of an admitted skill, as the resource row it becomes (metadata from the source's own listing when it lists it). */
export interface SkillFileResource {
  uri: string;
  name: string;
  title: string | null;
  description: string | null;
  mimeType: string | null;
  annotations: JsonObject | null;
  icons: JsonObject[] | null;
}

export interface SkillsPlan {
  skills: Omit<UpstreamSkillRow, 'servers' | 'upstream'>[];
  /** The files of the admitted skills, by URI. */
  files: Map<string, SkillFileResource>;
  refused: Array<{ name: string; reason: string }>;
}

const SKILL_MD_SUFFIX = `/${SKILL_MD}`;

/** The skill path of a `skill://<path>/SKILL.md` URI, or `undefined` for another URI. */
export function upstreamSkillPath(uri: string): string | undefined {
  if (!uri.startsWith(SKILL_URI_SCHEME) || !uri.endsWith(SKILL_MD_SUFFIX)) return undefined;
  const path = uri.slice(SKILL_URI_SCHEME.length, -SKILL_MD_SUFFIX.length);
  return path === '' || path.split('/').some((segment) => segment === '') ? undefined : path;
}

/**
 * The source's skills that can be served: each with a `skill://<path>/SKILL.md` URI, a listed manifest
 * (a `dynamic` one cannot be listed as resources, nor its reads routed), every file under the skill's
 * root and listing `SKILL.md`, its path held by no other skill (the tenant's own or another source's:
 * `heldSkill`), none of its files' URIs held by another's resource (`heldUri`), and listed once.
 */
export function planUpstreamSkills(
  items: SkillEntryItem[],
  listed: ReadonlyMap<string, ListedResource>,
  heldSkill: (path: string) => string | undefined,
  heldUri: (uri: string) => string | undefined,
): SkillsPlan {
  const plan: SkillsPlan = { skills: [], files: new Map(), refused: [] };
  const seen = new Set<string>();
  for (const { skill } of items) {
    const path = upstreamSkillPath(skill.uri);
    const reason =
      path === undefined ? `${skill.uri.slice(0, 200)} is not a skill://<skill-path>/SKILL.md URI` : skillRefusal(skill, path, seen, heldSkill, heldUri);
    if (path !== undefined) seen.add(path);
    if (reason !== undefined || path === undefined || skill.resources === 'dynamic') {
      plan.refused.push({ name: skill.uri, reason: reason ?? 'unreachable' });
      continue;
    }
    const root = `${SKILL_URI_SCHEME}${path}/`;
    const files = skill.resources.map((file): SkillFileRecord => {
      const filePath = file.uri.slice(root.length);
      return {
        path: filePath,
        digest: file.digest,
        size: file.size,
        mimeType: listed.get(file.uri)?.mimeType ?? (filePath === SKILL_MD ? 'text/markdown' : mediaTypeOf(filePath)),
      };
    });
    plan.skills.push({ name: path, frontmatter: skill.frontmatter as JsonObject, files, size: files.reduce((sum, file) => sum + file.size, 0) });
    for (const file of files) plan.files.set(`${root}${file.path}`, fileResource(`${root}${file.path}`, file, skill.frontmatter, listed));
  }
  return plan;
}

/** Why a skill with a well-formed URI is not served, or `undefined`. */
function skillRefusal(
  skill: SkillEntryItem['skill'],
  path: string,
  seen: ReadonlySet<string>,
  heldSkill: (path: string) => string | undefined,
  heldUri: (uri: string) => string | undefined,
): string | undefined {
  if (seen.has(path)) return 'the source lists more than one skill of this URI: the first is served';
  if (skill.resources === 'dynamic') return 'its files are `dynamic`: a skill is served with the list of its files';
  const root = `${SKILL_URI_SCHEME}${path}/`;
  const outside = skill.resources.find((file) => !file.uri.startsWith(root) || file.uri.length === root.length);
  if (outside) return `its file ${outside.uri.slice(0, 200)} is not under the skill's root ${root}`;
  if (!skill.resources.some((file) => file.uri === skill.uri)) return `its files do not list its ${SKILL_MD}`;
  if (new Set(skill.resources.map((file) => file.uri)).size !== skill.resources.length) return 'it lists a file more than once';
  const holder = heldSkill(path);
  if (holder !== undefined) return `${holder} holds the skill path ${path}`;
  for (const file of skill.resources) {
    const uriHolder = heldUri(file.uri);
    if (uriHolder !== undefined) return `${uriHolder} holds the URI of its file ${file.uri.slice(0, 200)}`;
  }
  return undefined;
}

/**
 * A file's resource row: as the source lists it, or, unlisted (an upstream may serve a skill's files
 * through a template only), named by its last segment, `SKILL.md` by the skill's name and description
 * as the tenant's own skills are.
 */
function fileResource(
  uri: string,
  file: SkillFileRecord,
  frontmatter: Record<string, unknown>,
  listed: ReadonlyMap<string, ListedResource>,
): SkillFileResource {
  const own = listed.get(uri);
  if (own) {
    return {
      uri,
      name: own.name,
      title: own.title ?? null,
      description: own.description ?? null,
      mimeType: own.mimeType ?? file.mimeType,
      annotations: (own.annotations as JsonObject | undefined) ?? null,
      icons: (own.icons as JsonObject[] | undefined) ?? null,
    };
  }
  const isManifest = file.path === SKILL_MD;
  return {
    uri,
    name: isManifest ? String(frontmatter['name']) : (file.path.split('/').at(-1) ?? file.path),
    title: null,
    description: isManifest ? String(frontmatter['description']) : null,
    mimeType: file.mimeType,
    annotations: null,
    icons: null,
  };
}
