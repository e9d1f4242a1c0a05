import type { resourceStore, RpcRequestParsed } from '@mcp-platform/protocol-contracts';
import { SKILL_URI_SCHEME } from '../resources/reserved-uris';
import { sameJson, touchedServers } from '../store/definition-writes';
import type { JsonObject, UpstreamOrigin } from '../store/store.types';
import { planUpstreamSkills, upstreamSkillPath, type UpstreamSkillRow } from './upstream-skills.plan';

/**
 * What `putUpstreamItems` writes, decided without the database: the rows the source should have, what is
 * refused and why, and which lists change. The repository reads what it needs under the tenant's lock
 * (the source's current rows, the holders of the names asked for), plans, and writes the plan.
 */

export type UpstreamItemsRequest = RpcRequestParsed<typeof resourceStore.putUpstreamItems>;
export type UpstreamServedKind = 'prompt' | 'resource' | 'resource-template' | 'skill';
export type UpstreamRefusal = { kind: UpstreamServedKind; name: string; reason: string };

/** An upstream prompt's row, as written and as compared (content-free: `messages` [] and no inputs). */
export interface UpstreamPromptRow {
  name: string;
  title: string | null;
  description: string | null;
  icons: JsonObject[] | null;
  arguments: Array<{ name: string; description?: string; required?: boolean }>;
  servers: string[];
  upstream: UpstreamOrigin;
}

/** An upstream resource's row (content-free: `size` 0, no `text` or `blob`). */
export interface UpstreamResourceRow {
  uri: string;
  name: string;
  title: string | null;
  description: string | null;
  mimeType: string | null;
  annotations: JsonObject | null;
  icons: JsonObject[] | null;
  servers: string[];
  upstream: UpstreamOrigin;
}

/** An upstream resource template's row (content-free: an empty text recipe, no completion values). */
export interface UpstreamTemplateRow {
  name: string;
  uriTemplate: string;
  title: string | null;
  description: string | null;
  mimeType: string | null;
  annotations: JsonObject | null;
  icons: JsonObject[] | null;
  servers: string[];
  upstream: UpstreamOrigin;
}

/** The source's rows of each kind (a skill's files are among its resources). */
export interface UpstreamRows {
  prompts: UpstreamPromptRow[];
  resources: UpstreamResourceRow[];
  resourceTemplates: UpstreamTemplateRow[];
  skills: UpstreamSkillRow[];
}

/**
 * Who else holds the keys asked for, per kind (prompt and template names, resource URIs, skill paths):
 * `null` the tenant's own item, else the other source. Keys nobody else holds are absent.
 */
export interface KeyHolders {
  prompts: ReadonlyMap<string, UpstreamOrigin | null>;
  resources: ReadonlyMap<string, UpstreamOrigin | null>;
  resourceTemplates: ReadonlyMap<string, UpstreamOrigin | null>;
  skills: ReadonlyMap<string, UpstreamOrigin | null>;
}

/** Whether a kind's rows differ, and the servers whose list the difference touches. */
export interface KindChange {
  changed: boolean;
  /** As `listChanged.servers`: `[]` is every server of the tenant. */
  servers: string[];
}

export interface UpstreamItemsPlan {
  rows: UpstreamRows;
  refused: UpstreamRefusal[];
  changes: { prompts: KindChange; resources: KindChange; resourceTemplates: KindChange; skills: KindChange };
}

const KIND_WORDS: Record<UpstreamServedKind, string> = { prompt: 'prompt', resource: 'resource', 'resource-template': 'resource template', skill: 'skill' };

/** The keys of the request, per kind: what the repository asks the holders of (a skill's files' URIs among the resources'). */
export function requestedKeys(request: UpstreamItemsRequest): { prompts: string[]; resources: string[]; resourceTemplates: string[]; skills: string[] } {
  const skillFiles = request.skills.flatMap(({ skill }) => (skill.resources === 'dynamic' ? [] : skill.resources.map((file) => file.uri)));
  return {
    prompts: unique(request.prompts.map((item) => item.prompt.name)),
    resources: unique([...request.resources.map((item) => item.resource.uri), ...skillFiles]),
    resourceTemplates: unique(request.resourceTemplates.map((item) => item.resourceTemplate.name)),
    skills: unique(request.skills.flatMap(({ skill }) => upstreamSkillPath(skill.uri) ?? [])),
  };
}

/**
 * The source's rows after the request: every item but those whose key the tenant's own items or
 * another source hold, a key listed twice (the first is kept), and resources under `skill://` (the
 * scheme of skills' files) but the files of the source's skills served. Each row is on the request's `servers`.
 */
export function planUpstreamItems(request: UpstreamItemsRequest, current: UpstreamRows, holders: KeyHolders): UpstreamItemsPlan {
  const servers = unique(request.servers).sort();
  const refused: UpstreamRefusal[] = [];
  const origin = (name: string): UpstreamOrigin => ({ sourceId: request.sourceId, source: request.source, name });
  const admit = <I>(kind: UpstreamServedKind, items: I[], keyOf: (item: I) => string, held: ReadonlyMap<string, UpstreamOrigin | null>): I[] => {
    const seen = new Set<string>();
    return items.filter((item) => {
      const key = keyOf(item);
      const reason = refusalReason(kind, key, held, seen);
      seen.add(key);
      if (reason !== undefined) refused.push({ kind, name: key, reason });
      return reason === undefined;
    });
  };

  const prompts = admit('prompt', request.prompts, (item) => item.prompt.name, holders.prompts).map(({ prompt, upstreamName }): UpstreamPromptRow => ({
    name: prompt.name,
    title: prompt.title ?? null,
    description: prompt.description ?? null,
    icons: (prompt.icons as JsonObject[] | undefined) ?? null,
    arguments: (prompt.arguments ?? []).map((argument) => ({
      name: argument.name,
      ...(argument.description === undefined ? {} : { description: argument.description }),
      ...(argument.required === undefined ? {} : { required: argument.required }),
    })),
    servers,
    upstream: origin(upstreamName),
  }));
  const skills = skillRows(request, holders, servers, refused);
  const listed = request.resources.filter((item) => !skills.files.has(item.resource.uri));
  const resources = admit('resource', listed, (item) => item.resource.uri, holders.resources).map(({ resource }): UpstreamResourceRow => ({
    uri: resource.uri,
    name: resource.name,
    title: resource.title ?? null,
    description: resource.description ?? null,
    mimeType: resource.mimeType ?? null,
    annotations: (resource.annotations as JsonObject | undefined) ?? null,
    icons: (resource.icons as JsonObject[] | undefined) ?? null,
    servers,
    upstream: origin(resource.uri),
  }));
  for (const file of skills.files.values()) resources.push({ ...file, servers, upstream: origin(file.uri) });
  const resourceTemplates = admit('resource-template', request.resourceTemplates, (item) => item.resourceTemplate.name, holders.resourceTemplates).map(
    ({ resourceTemplate, upstreamName }): UpstreamTemplateRow => ({
      name: resourceTemplate.name,
      uriTemplate: resourceTemplate.uriTemplate,
      title: resourceTemplate.title ?? null,
      description: resourceTemplate.description ?? null,
      mimeType: resourceTemplate.mimeType ?? null,
      annotations: (resourceTemplate.annotations as JsonObject | undefined) ?? null,
      icons: (resourceTemplate.icons as JsonObject[] | undefined) ?? null,
      servers,
      upstream: origin(upstreamName),
    }),
  );

  return {
    rows: { prompts, resources, resourceTemplates, skills: skills.rows },
    refused,
    changes: {
      prompts: kindChange(current.prompts, prompts, (row) => row.name),
      resources: kindChange(current.resources, resources, (row) => row.uri),
      resourceTemplates: kindChange(current.resourceTemplates, resourceTemplates, (row) => row.name),
      skills: kindChange(current.skills, skills.rows, (row) => row.name),
    },
  };
}

/**
 * The source's skills served (`upstream-skills.plan.ts`), their refusals added to `refused`, and their
 * files, which the source's listing of them (if any) describes.
 */
function skillRows(
  request: UpstreamItemsRequest,
  holders: KeyHolders,
  servers: string[],
  refused: UpstreamRefusal[],
): { rows: UpstreamSkillRow[]; files: ReturnType<typeof planUpstreamSkills>['files'] } {
  const listed = new Map(request.resources.map(({ resource }) => [resource.uri, resource]));
  const holderWord = (held: ReadonlyMap<string, UpstreamOrigin | null>, key: string, word: string) => {
    if (!held.has(key)) return undefined;
    const holder = held.get(key);
    return holder ? `upstream source ${holder.source}'s ${word}` : `the tenant's own ${word}`;
  };
  const plan = planUpstreamSkills(
    request.skills,
    listed,
    (path) => holderWord(holders.skills, path, 'skill'),
    (uri) => holderWord(holders.resources, uri, 'resource'),
  );
  for (const refusal of plan.refused) refused.push({ kind: 'skill', ...refusal });
  const rows = plan.skills.map((skill): UpstreamSkillRow => ({
    ...skill,
    servers,
    upstream: { sourceId: request.sourceId, source: request.source, name: `${SKILL_URI_SCHEME}${skill.name}/SKILL.md` },
  }));
  return { rows, files: plan.files };
}

/** Why an item is not served, or `undefined` when it is. */
function refusalReason(kind: UpstreamServedKind, key: string, held: ReadonlyMap<string, UpstreamOrigin | null>, seen: ReadonlySet<string>): string | undefined {
  const word = KIND_WORDS[kind];
  const keyWord = kind === 'resource' ? 'URI' : 'name';
  if (seen.has(key)) return `the source lists more than one ${word} of this ${keyWord}: the first is served`;
  if (kind === 'resource' && key.startsWith(SKILL_URI_SCHEME))
    return `${SKILL_URI_SCHEME} URIs are the files of skills: this is no file of a skill the source serves`;
  if (!held.has(key)) return undefined;
  const holder = held.get(key);
  if (holder === null || holder === undefined) return `the tenant's own ${word} ${key} holds this ${keyWord}`;
  return `upstream source ${holder.source} serves a ${word} of this ${keyWord}`;
}

/** Whether the rows of one kind differ (in any field, by key), and which servers' lists that touches. */
function kindChange<R extends { servers: string[] }>(before: R[], after: R[], keyOf: (row: R) => string): KindChange {
  const byKey = (rows: R[]) => [...rows].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  if (sameJson(byKey(before), byKey(after))) return { changed: false, servers: [] };
  const [was, is] = [serversOf(before), serversOf(after)];
  const servers = was === undefined ? (is ?? []) : is === undefined ? was : touchedServers(was, is);
  return { changed: true, servers };
}

/** The servers some of the rows are on (`[]`: every server, when one is); `undefined` without rows. */
function serversOf(rows: Array<{ servers: string[] }>): string[] | undefined {
  if (rows.length === 0) return undefined;
  if (rows.some((row) => row.servers.length === 0)) return [];
  return unique(rows.flatMap((row) => row.servers)).sort();
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
