#!/usr/bin/env node
// CI check (STYLE.md §1): every project under apps/ and libs/ has exactly one scope:, type: and
// platform: tag from the closed vocabulary in tools/project-tags.mjs. Exits 1 listing every problem.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkWorkspace, TAG_VOCABULARY } from './project-tags.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { projects, problems } = checkWorkspace(root);

if (problems.length) {
  console.error(`check-project-tags: ${problems.length} problem(s) in the tags of ${projects} project(s):`);
  for (const problem of problems) console.error(`  - ${problem}`);
  console.error('\nAllowed tags (package.json "nx": { "tags": [...] }):');
  for (const [kind, values] of Object.entries(TAG_VOCABULARY)) console.error(`  ${kind}: ${values.join(' | ')}`);
  process.exit(1);
}
console.log(`check-project-tags: ${projects} projects, each with one scope:, type: and platform: tag from the closed list.`);
