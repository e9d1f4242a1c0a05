import { createHash } from 'node:crypto';
import { lookup } from 'mime-types';
import { parse as parseYaml } from 'yaml';
import { SKILL_NAME_PATTERN } from '@mcp-platform/protocol-contracts';
import type { SkillFileRecord } from './skill.entity';
import type { ArchiveFile } from './skill-archive';

/** The manifest file every skill has at its root (Agent Skills specification). */
export const SKILL_MD = 'SKILL.md';

/** Frontmatter metadata keys under this prefix are reserved for MCP extensions, which define none yet. */
const RESERVED_METADATA_PREFIX = 'io.modelcontextprotocol/';

/** The Agent Skills specification's bound on `description`. */
const MAX_DESCRIPTION_LENGTH = 1024;

/** Largest frontmatter block read, in characters: a manifest, not a document. */
const MAX_FRONTMATTER_LENGTH = 64 * 1024;

/** A file of a validated skill: its manifest record, its bytes, and its text when it is served as text. */
export interface SkillFile extends SkillFileRecord {
  data: Buffer;
  /** The UTF-8 text of a text file (served as `text`); absent: served as a `blob`. */
  text?: string;
}

/** A skill ready to store: its name, its `SKILL.md` frontmatter, its files (`SKILL.md` first, then by path). */
export interface ValidatedSkill {
  name: string;
  frontmatter: Record<string, unknown>;
  description: string;
  files: SkillFile[];
  size: number;
}

/** A skill the store refuses: `data.code` `BAD_SKILL` in the refusal, with this message. */
export class InvalidSkillError extends Error {}

/**
 * Checks the files of a skill against the Agent Skills format as SEP-2640 serves it: a `SKILL.md` at
 * the root, beginning with YAML frontmatter that is a mapping with a `name` (the naming rule, equal
 * to `expectedName`, the name the skill is stored under) and a non-empty `description`, and no
 * metadata key under the reserved `io.modelcontextprotocol/` prefix. Computes each file's digest,
 * size and media type; text files (by media type, valid UTF-8) keep their text.
 */
export function validateSkill(expectedName: string, archiveFiles: ArchiveFile[]): ValidatedSkill {
  const manifest = archiveFiles.find((file) => file.path === SKILL_MD);
  if (!manifest)
    throw new InvalidSkillError(
      `A skill needs a ${SKILL_MD} at its root (found: ${
        archiveFiles
          .slice(0, 5)
          .map((file) => file.path)
          .join(', ') || 'no files'
      })`,
    );
  const text = utf8(manifest.data);
  if (text === undefined) throw new InvalidSkillError(`${SKILL_MD} is not UTF-8 text`);
  const frontmatter = readFrontmatter(text);
  const { name, description } = checkFrontmatter(expectedName, frontmatter);

  const files = [...archiveFiles]
    .sort((left, right) => (left.path === SKILL_MD ? -1 : right.path === SKILL_MD ? 1 : left.path < right.path ? -1 : left.path > right.path ? 1 : 0))
    .map(describeFile);
  return { name, frontmatter, description, files, size: files.reduce((total, file) => total + file.size, 0) };
}

/** The frontmatter's required fields, by the Agent Skills rules and the name the skill is stored under. */
function checkFrontmatter(expectedName: string, frontmatter: Record<string, unknown>): { name: string; description: string } {
  const name = frontmatter['name'];
  if (typeof name !== 'string' || !SKILL_NAME_PATTERN.test(name)) {
    throw new InvalidSkillError(`${SKILL_MD}: name ${JSON.stringify(name)} is not 1-64 lowercase letters, digits and single hyphens`);
  }
  if (name !== expectedName) throw new InvalidSkillError(`${SKILL_MD}: name "${name}" differs from the skill's name "${expectedName}"; they must be equal`);
  const description = frontmatter['description'];
  if (typeof description !== 'string' || description.trim().length === 0) throw new InvalidSkillError(`${SKILL_MD}: description is missing or empty`);
  if (description.length > MAX_DESCRIPTION_LENGTH) throw new InvalidSkillError(`${SKILL_MD}: description is over ${MAX_DESCRIPTION_LENGTH} characters`);
  const metadata = frontmatter['metadata'];
  if (metadata !== undefined && (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)))
    throw new InvalidSkillError(`${SKILL_MD}: metadata must be a mapping`);
  const reserved = Object.keys((metadata as Record<string, unknown> | undefined) ?? {}).filter((key) => key.startsWith(RESERVED_METADATA_PREFIX));
  if (reserved.length > 0)
    throw new InvalidSkillError(`${SKILL_MD}: metadata keys under ${RESERVED_METADATA_PREFIX} are reserved for MCP extensions: ${reserved.join(', ')}`);
  return { name, description };
}

/**
 * The YAML frontmatter of a `SKILL.md` (between a first line `---` and the next `---`), as JSON: a
 * mapping, parsed as YAML 1.2 core (no dates, no custom tags), whose values survive JSON as they are.
 */
export function readFrontmatter(markdown: string): Record<string, unknown> {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(markdown.charCodeAt(0) === 0xfeff ? markdown.slice(1) : markdown);
  if (match?.[1] === undefined) throw new InvalidSkillError(`${SKILL_MD} must begin with YAML frontmatter between two --- lines`);
  if (match[1].length > MAX_FRONTMATTER_LENGTH) throw new InvalidSkillError(`${SKILL_MD}: the frontmatter is over ${MAX_FRONTMATTER_LENGTH} characters`);
  let parsed: unknown;
  try {
    parsed = parseYaml(match[1], { schema: 'core', maxAliasCount: 100, uniqueKeys: true });
  } catch (error) {
    throw new InvalidSkillError(`${SKILL_MD}: the frontmatter is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new InvalidSkillError(`${SKILL_MD}: the frontmatter must be a YAML mapping`);
  return JSON.parse(JSON.stringify(parsed)) as Record<string, unknown>;
}

function describeFile(file: ArchiveFile): SkillFile {
  const mimeType = file.path === SKILL_MD ? 'text/markdown' : mediaTypeOf(file.path);
  const text = isTextual(mimeType) ? utf8(file.data) : undefined;
  return {
    path: file.path,
    digest: `sha256:${createHash('sha256').update(file.data).digest('hex')}`,
    size: file.data.length,
    mimeType,
    data: file.data,
    ...(text === undefined ? {} : { text }),
  };
}

/** The media type a file's extension names; unknown ones are bytes, and common script and text files are text. */
export function mediaTypeOf(path: string): string {
  const known = lookup(path);
  if (known) return known;
  if (/\.(py|rb|ts|tsx|jsx|go|rs|java|kt|sql|toml|ini|cfg|env|txt|log)$/i.test(path) || !/\.[^/]+$/.test(path)) return 'text/plain';
  return 'application/octet-stream';
}

function isTextual(mimeType: string): boolean {
  return mimeType.startsWith('text/') || /^application\/(json|[a-z.+-]*\+json|xml|[a-z.+-]*\+xml|yaml|x-yaml|javascript|x-sh|x-python|toml)$/.test(mimeType);
}

/** The text of `bytes` if they are valid UTF-8, else `undefined`. */
function utf8(bytes: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
