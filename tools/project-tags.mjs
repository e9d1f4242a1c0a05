// The closed tag vocabulary of the workspace (STYLE.md §1) and the check that every project carries
// exactly one tag of each kind. Used by tools/check-project-tags.mjs (CI) and eslint.config.mjs.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The five services; each is its own scope, so scope rules alone forbid one app importing another. */
export const APP_SCOPES = Object.freeze(['authorization-server', 'session-broker', 'tool-executor', 'resource-store', 'task-scheduler']);

/** Every allowed tag, by kind. `scope:standalone` is the embedded host that boots the five apps. */
export const TAG_VOCABULARY = Object.freeze({
  scope: Object.freeze([...APP_SCOPES, 'standalone', 'shared']),
  type: Object.freeze(['app', 'feature', 'data-access', 'contracts', 'protocol', 'util', 'testing']),
  platform: Object.freeze(['node', 'neutral']),
});

/** Where projects live: `apps/<name>` and `libs/<group>/<name>` (the npm workspaces of package.json). */
const PROJECT_DEPTH = { apps: 1, libs: 2 };

/**
 * Finds every project folder (one holding a package.json) under apps/ and libs/.
 * @param {string} root the workspace root
 * @returns {{ path: string, manifest: unknown }[]}
 */
export function findProjects(root) {
  /** @type {{ path: string, manifest: unknown }[]} */
  const projects = [];
  for (const [top, depth] of Object.entries(PROJECT_DEPTH)) {
    /** @param {string} folder @param {number} level */
    const walk = (folder, level) => {
      if (!existsSync(folder)) return;
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        if (!entry.isDirectory() || entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
        const child = join(folder, entry.name);
        if (level + 1 < depth) {
          walk(child, level + 1);
          continue;
        }
        const manifestPath = join(child, 'package.json');
        projects.push({
          path: relative(root, child).split('\\').join('/'),
          manifest: existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : undefined,
        });
      }
    };
    walk(join(root, top), 0);
  }
  return projects.sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * The problems with one project's tags (empty when it is fine): exactly one tag of each kind from
 * the vocabulary, nothing else, apps in their own scope, libs in `scope:shared`.
 * @param {{ path: string, manifest: unknown }} project
 * @returns {string[]}
 */
export function checkProject(project) {
  const { path, manifest } = project;
  if (manifest === undefined) return [`${path}: no package.json (every folder under apps/ and libs/<group>/ is a project)`];
  const nx = /** @type {{ nx?: { tags?: unknown } }} */ (manifest).nx;
  const tags = nx?.tags;
  if (!Array.isArray(tags)) return [`${path}: package.json has no "nx": { "tags": [...] }`];

  const problems = [];
  /** @type {Record<string, string[]>} */
  const byKind = { scope: [], type: [], platform: [] };
  for (const tag of tags) {
    if (typeof tag !== 'string' || !tag.includes(':')) {
      problems.push(`${path}: tag ${JSON.stringify(tag)} is not "<kind>:<value>"`);
      continue;
    }
    const [kind, value] = [tag.slice(0, tag.indexOf(':')), tag.slice(tag.indexOf(':') + 1)];
    const allowed = /** @type {Record<string, readonly string[]>} */ (TAG_VOCABULARY)[kind];
    if (!allowed) {
      problems.push(`${path}: unknown tag kind in "${tag}" (allowed kinds: ${Object.keys(TAG_VOCABULARY).join(', ')})`);
    } else if (!allowed.includes(value)) {
      problems.push(`${path}: unknown tag "${tag}" (allowed ${kind} values: ${allowed.join(', ')})`);
    } else {
      byKind[kind]?.push(value);
    }
  }
  for (const [kind, values] of Object.entries(byKind)) {
    if (values.length !== 1) {
      problems.push(`${path}: needs exactly one "${kind}:" tag, has ${values.length ? values.map((v) => `${kind}:${v}`).join(', ') : 'none'}`);
    }
  }
  if (problems.length) return problems;

  const [scope] = byKind.scope;
  const [type] = byKind.type;
  const isApp = path.startsWith('apps/');
  if (isApp && type !== 'app') problems.push(`${path}: a project under apps/ is "type:app", not "type:${type}"`);
  if (!isApp && type === 'app') problems.push(`${path}: "type:app" belongs under apps/`);
  // The boundary rules rely on this: an app's scope is its own name, so importing another app crosses scopes.
  if (isApp && scope !== path.slice('apps/'.length))
    problems.push(`${path}: an app's scope is its own name ("scope:${path.slice('apps/'.length)}"), not "scope:${scope}"`);
  // A lib is shared, or owned by one app when it sits in that app's group (libs/<app>/<name>).
  const group = path.split('/')[1] ?? '';
  const ownScope = APP_SCOPES.includes(group) ? group : undefined;
  if (!isApp && scope !== 'shared' && scope !== ownScope) {
    problems.push(`${path}: a lib is "scope:shared"${ownScope ? ` or "scope:${ownScope}"` : ''}, not "scope:${scope}"`);
  }
  return problems;
}

/**
 * Checks every project of the workspace.
 * @param {string} root
 * @returns {{ projects: number, problems: string[] }}
 */
export function checkWorkspace(root) {
  const projects = findProjects(root);
  return { projects: projects.length, problems: projects.flatMap(checkProject) };
}
