import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const thisFile = 'tools/self-contained.spec.ts';

/** Ways a file of the repository could name the folder beside it (the parent directory's `shared`). */
const OUTSIDE_REFERENCES = [/\.\.\/shared\//, /['"]\.\.['"],\s*['"]shared['"]/];

describe('the repository', () => {
  it('names no file outside itself: a fresh clone alone runs npm test and .ci/run', () => {
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
    const offenders = tracked.filter((path) => {
      if (!/\.(m?[jt]s|json|ya?ml|sh|md)$|^\.ci\//.test(path) || path === 'package-lock.json' || path === thisFile) return false;
      const text = readFileSync(join(root, path), 'utf8');
      return OUTSIDE_REFERENCES.some((pattern) => pattern.test(text));
    });
    expect(offenders).toEqual([]);
  });
});
