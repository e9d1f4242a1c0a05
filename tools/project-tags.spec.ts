import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkProject, checkWorkspace, findProjects } from './project-tags.mjs';

function project(path: string, tags: unknown): { path: string; manifest: unknown } {
  return { path, manifest: { name: `@mcp-platform/${path.split('/').pop() ?? ''}`, nx: { tags } } };
}

describe('project-tags', () => {
  describe('checkProject', () => {
    it('accepts an app with its own scope and one tag of each kind', () => {
      expect(checkProject(project('apps/session-broker', ['scope:session-broker', 'type:app', 'platform:node']))).toEqual([]);
    });

    it('accepts a shared lib and an app-owned lib in its app group', () => {
      expect(checkProject(project('libs/protocol/mcp', ['scope:shared', 'type:protocol', 'platform:neutral']))).toEqual([]);
      expect(checkProject(project('libs/resource-store/data-access', ['scope:resource-store', 'type:data-access', 'platform:node']))).toEqual([]);
    });

    it('reports a missing kind when a project has no platform tag', () => {
      const problems = checkProject(project('libs/shared/config', ['scope:shared', 'type:util']));
      expect(problems).toEqual(['libs/shared/config: needs exactly one "platform:" tag, has none']);
    });

    it('reports two tags of one kind', () => {
      const problems = checkProject(project('libs/shared/config', ['scope:shared', 'type:util', 'type:feature', 'platform:node']));
      expect(problems).toEqual(['libs/shared/config: needs exactly one "type:" tag, has type:util, type:feature']);
    });

    it('reports a tag outside the vocabulary when its value is a typo', () => {
      const problems = checkProject(project('libs/shared/config', ['scope:shared', 'type:constants', 'platform:node']));
      expect(problems).toContain(
        'libs/shared/config: unknown tag "type:constants" (allowed type values: app, feature, data-access, contracts, protocol, util, testing)',
      );
    });

    it('reports an unknown kind and a tag without a kind', () => {
      const problems = checkProject(project('libs/shared/config', ['scope:shared', 'type:util', 'platform:node', 'layer:core', 'npm:private', 'loose']));
      expect(problems).toEqual([
        'libs/shared/config: unknown tag kind in "layer:core" (allowed kinds: scope, type, platform)',
        'libs/shared/config: unknown tag kind in "npm:private" (allowed kinds: scope, type, platform)',
        'libs/shared/config: tag "loose" is not "<kind>:<value>"',
      ]);
    });

    it('reports an app that borrows another scope, since the boundary rules rely on one scope per app', () => {
      expect(checkProject(project('apps/tool-executor', ['scope:shared', 'type:app', 'platform:node']))).toEqual([
        'apps/tool-executor: an app\'s scope is its own name ("scope:tool-executor"), not "scope:shared"',
      ]);
    });

    it('reports type:app outside apps/ and another type inside apps/', () => {
      expect(checkProject(project('libs/shared/boot', ['scope:shared', 'type:app', 'platform:node']))).toEqual([
        'libs/shared/boot: "type:app" belongs under apps/',
      ]);
      expect(checkProject(project('apps/standalone', ['scope:standalone', 'type:util', 'platform:node']))).toEqual([
        'apps/standalone: a project under apps/ is "type:app", not "type:util"',
      ]);
    });

    it('reports a missing tags list and a missing package.json', () => {
      expect(checkProject({ path: 'apps/standalone', manifest: { name: 'x' } })).toEqual(['apps/standalone: package.json has no "nx": { "tags": [...] }']);
      expect(checkProject({ path: 'apps/standalone', manifest: undefined })).toEqual([
        'apps/standalone: no package.json (every folder under apps/ and libs/<group>/ is a project)',
      ]);
    });
  });

  describe('checkWorkspace', () => {
    let root: string | undefined;
    afterEach(() => {
      if (root) rmSync(root, { recursive: true, force: true });
      root = undefined;
    });

    function write(path: string, manifest: unknown): void {
      if (!root) throw new Error('no root');
      mkdirSync(join(root, path), { recursive: true });
      writeFileSync(join(root, path, 'package.json'), JSON.stringify(manifest));
    }

    it('finds apps at depth one and libs at depth two, and lists every problem', () => {
      root = mkdtempSync(join(tmpdir(), 'project-tags-'));
      write('apps/task-scheduler', { nx: { tags: ['scope:task-scheduler', 'type:app', 'platform:node'] } });
      write('libs/shared/config', { nx: { tags: ['scope:shared', 'type:util'] } });
      mkdirSync(join(root, 'libs/shared/orphan'), { recursive: true });

      expect(findProjects(root).map((found) => found.path)).toEqual(['apps/task-scheduler', 'libs/shared/config', 'libs/shared/orphan']);
      expect(checkWorkspace(root)).toEqual({
        projects: 3,
        problems: [
          'libs/shared/config: needs exactly one "platform:" tag, has none',
          'libs/shared/orphan: no package.json (every folder under apps/ and libs/<group>/ is a project)',
        ],
      });
    });
  });
});
