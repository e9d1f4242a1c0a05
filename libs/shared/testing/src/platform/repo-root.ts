import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The monorepo root: the nearest folder above `from` whose package.json declares `workspaces`. */
export function findRepoRoot(from: string = process.cwd()): string {
  let current = from;
  for (;;) {
    const manifest = join(current, 'package.json');
    if (existsSync(manifest)) {
      const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { workspaces?: unknown };
      if (parsed.workspaces !== undefined) return current;
    }
    const parent = dirname(current);
    if (parent === current) throw new Error(`no workspace root above ${from}`);
    current = parent;
  }
}
