/** One seeded skill: its name, the servers serving it, its files by path (text). */
export interface SkillFixture {
  name: string;
  servers: string[];
  files: Record<string, string>;
}

/**
 * The skills of `conformance/everything`: what the newest suite's `sep-2640-*` scenarios read. The
 * suite discovers them through `skills/list`; `resources/directory/read` needs a skill with a folder
 * (`references/`).
 */
export const CONFORMANCE_SKILLS: SkillFixture[] = [
  {
    name: 'pdf-processing',
    servers: ['everything'],
    files: {
      'SKILL.md': `---
name: pdf-processing
description: Extract, fill, and assemble PDF documents
license: Apache-2.0
metadata:
  version: "2.1.0"
---

# PDF processing

Use this skill when a task involves reading text out of a PDF, filling a PDF form, or joining PDFs.

1. To fill a form, read [the form guide](references/FORMS.md) first: it lists the field types.
2. To extract text, run \`scripts/extract.py <file.pdf>\`; it prints one page per paragraph.
`,
      'references/FORMS.md': `# Filling PDF forms

Text fields take a string; check boxes take \`Yes\` or \`Off\`; choice fields take one of their options.
Flatten the form after filling it when the result must not be edited again.
`,
      'scripts/extract.py': `"""Prints the text of each page of a PDF, one paragraph per page."""
import sys

from pypdf import PdfReader

for page in PdfReader(sys.argv[1]).pages:
    print(page.extract_text().strip(), end="\\n\\n")
`,
    },
  },
  {
    name: 'release-notes',
    servers: ['everything'],
    files: {
      'SKILL.md': `---
name: release-notes
description: Write release notes from a list of merged changes, grouped by kind
---

# Release notes

Group the changes under "Added", "Changed", "Fixed" and "Removed", one line each, newest first.
Name breaking changes first, with what a user must do.
`,
    },
  },
];

/** The skill of `demo/default`: one a team would actually use. */
export const DEMO_SKILLS: SkillFixture[] = [
  {
    name: 'commit-messages',
    servers: ['default'],
    files: {
      'SKILL.md': `---
name: commit-messages
description: Write a git commit message in this team's style, a short subject and the why in the body
---

# Commit messages

- Subject: about 72 characters, imperative mood, no trailing period, naming what changed.
- Body: why the change was made and what it costs; wrap at 72 columns.
- One logical change per commit; see [examples](examples/GOOD.md).
`,
      'examples/GOOD.md': `# Good subjects

- Broker: answer -32602 for an unknown skill URI
- Store: refuse archives that unpack past 16 MiB
`,
    },
  },
];
