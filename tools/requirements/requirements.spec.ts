import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The requirement index (docs/spec/requirements.md) against the code: every `S-n` / `C-n` cited
 * under the folders below must be defined there exactly once, with a level and an era.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const INDEX = 'docs/spec/requirements.md';
/** This file: its own examples below cite ids on purpose. */
const THIS_FILE = join('tools', 'requirements', 'requirements.spec.ts');
const CITING_FOLDERS = ['apps', 'libs', 'tools', 'bench', 'docs'];
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'coverage']);
const LEVELS = new Set(['MUST', 'MUST NOT', 'SHOULD', 'SHOULD NOT', 'MAY', 'info', 'impl']);
const ERAS = new Set(['L', 'M', 'L+M']);

/** `| S-12 | title | level | era | requirement | [page](https://modelcontextprotocol.io/...) |` */
const ROW = /^\|\s*([SC]-\d+)\s*\|([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|\s*$/;
const ROW_START = /^\|\s*[SC]-\d+\s*\|/;
const CITATION = /\b[SC]-\d{1,4}\b/g;
const SPEC_LINK = /^\[[^\]]+\]\(https:\/\/modelcontextprotocol\.io\/[^)\s]+\)$/;

interface IndexScan {
  ids: Set<string>;
  problems: string[];
}

function rowProblems(id: string, cells: string[]): string[] {
  const [title = '', level = '', era = '', text = '', link = ''] = cells.map((cell) => cell.trim());
  const problems: string[] = [];
  if (!title || !text) problems.push(`${id}: empty title or requirement`);
  if (!level || !level.split(' / ').every((part) => LEVELS.has(part)))
    problems.push(`${id}: level "${level}" is not one of ${[...LEVELS].join(', ')} (joined by " / ")`);
  if (!ERAS.has(era)) problems.push(`${id}: era "${era}" is not L, M or L+M`);
  if (!SPEC_LINK.test(link)) problems.push(`${id}: spec section "${link}" is not a link to modelcontextprotocol.io`);
  return problems;
}

export function scanIndex(markdown: string): IndexScan {
  const ids = new Set<string>();
  const problems: string[] = [];
  for (const line of markdown.split('\n')) {
    if (!ROW_START.test(line)) continue;
    const row = ROW.exec(line);
    if (!row) {
      problems.push(`not a six-column row: ${line.slice(0, 60)}`);
      continue;
    }
    const [, id = '', ...cells] = row;
    if (ids.has(id)) problems.push(`${id}: defined twice`);
    ids.add(id);
    problems.push(...rowProblems(id, cells));
  }
  return { ids, problems };
}

/** Text files under `folder` (relative to the root), without dependencies, build output or dot folders. */
function textFiles(folder: string): string[] {
  const files: string[] = [];
  const pending = [folder];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    for (const entry of readdirSync(join(root, current), { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name) && !entry.name.startsWith('.')) pending.push(path);
      } else if (entry.isFile() && statSync(join(root, path)).size < 2_000_000) {
        files.push(path);
      }
    }
  }
  return files;
}

/** Each cited id, with the files citing it. Binary files (a NUL byte) are skipped. */
export function citations(files: string[], read: (path: string) => string): Map<string, string[]> {
  const cited = new Map<string, string[]>();
  for (const path of files) {
    const text = read(path);
    if (text.includes('\0')) continue;
    for (const id of new Set(text.match(CITATION) ?? [])) cited.set(id, [...(cited.get(id) ?? []), path]);
  }
  return cited;
}

describe('the requirement index', () => {
  const index = scanIndex(readFileSync(join(root, INDEX), 'utf8'));

  it('defines each id once, every row with a title, a level, an era and a spec link', () => {
    expect(index.problems).toEqual([]);
    expect(index.ids.size).toBeGreaterThan(0);
  });

  it('defines every S-n and C-n cited under apps/, libs/, tools/, bench/ and docs/', () => {
    const files = CITING_FOLDERS.flatMap((folder) => textFiles(folder)).filter((path) => path !== THIS_FILE);
    const cited = citations(files, (path) => readFileSync(join(root, path), 'utf8'));
    const missing = [...cited].filter(([id]) => !index.ids.has(id)).map(([id, where]) => `${id} (cited in ${where.join(', ')})`);
    expect(missing).toEqual([]);
    expect(cited.size).toBeGreaterThan(100);
  });
});

describe('the index checks themselves', () => {
  const row = (id: string, level: string, era: string) =>
    `| ${id} | A title | ${level} | ${era} | What we do. | [2026-07-28 basic](https://modelcontextprotocol.io/specification/2026-07-28/basic) |`;

  it('accept a well-formed row, combined levels included', () => {
    expect(scanIndex([row('S-1', 'MUST', 'L+M'), row('S-2', 'MUST / MAY', 'M')].join('\n'))).toEqual({ ids: new Set(['S-1', 'S-2']), problems: [] });
  });

  it('report an id defined twice, a missing level or era, and a row with a stray cell', () => {
    const markdown = [
      row('S-1', 'MUST', 'L'),
      row('S-1', 'MUST', 'M'),
      row('S-2', ' ', 'L'),
      row('S-3', 'SHOULD', ''),
      row('C-4', 'OPTIONAL', 'L'),
      '| S-5 | a | MUST | L | x | y | z |',
    ].join('\n');
    expect(scanIndex(markdown).problems).toEqual([
      'S-1: defined twice',
      'S-2: level "" is not one of MUST, MUST NOT, SHOULD, SHOULD NOT, MAY, info, impl (joined by " / ")',
      'S-3: era "" is not L, M or L+M',
      'C-4: level "OPTIONAL" is not one of MUST, MUST NOT, SHOULD, SHOULD NOT, MAY, info, impl (joined by " / ")',
      'not a six-column row: | S-5 | a | MUST | L | x | y | z |',
    ]);
  });

  it('find citations by whole id only, once per file, and skip binary files', () => {
    const texts: Record<string, string> = { 'a.ts': '/** Unknown tool (S-14, S-188); again S-14. */', 'b.md': 'ES-256, XS-1x and C-3 here', 'c.bin': 'S-99\0' };
    expect([...citations(Object.keys(texts), (path) => texts[path] ?? '')]).toEqual([
      ['S-14', ['a.ts']],
      ['S-188', ['a.ts']],
      ['C-3', ['b.md']],
    ]);
  });
});
