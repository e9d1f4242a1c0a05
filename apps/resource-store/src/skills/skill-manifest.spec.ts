import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readFrontmatter, validateSkill } from './skill-manifest';
import { parseSkillUri, skillFileUri } from './skill-uris';
import { directoryChildren } from './skills.service';

const file = (path: string, text: string) => ({ path, data: Buffer.from(text, 'utf8') });
const skillMd = (frontmatter: string) => file('SKILL.md', `---\n${frontmatter}\n---\n# Body\n`);

describe('validateSkill', () => {
  it('keeps the frontmatter verbatim and computes digests, sizes and media types, SKILL.md first', () => {
    const skill = validateSkill('pdf-tools', [
      file('scripts/extract.py', 'print(1)\n'),
      skillMd('name: pdf-tools\ndescription: Work with PDFs\nlicense: MIT\nmetadata:\n  version: "1.0"'),
      { path: 'logo.png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff]) },
    ]);
    expect(skill.frontmatter).toEqual({ name: 'pdf-tools', description: 'Work with PDFs', license: 'MIT', metadata: { version: '1.0' } });
    expect(skill.files.map((entry) => [entry.path, entry.mimeType, entry.text !== undefined])).toEqual([
      ['SKILL.md', 'text/markdown', true],
      ['logo.png', 'image/png', false],
      ['scripts/extract.py', 'text/plain', true],
    ]);
    const py = skill.files[2];
    expect(py?.digest).toBe(`sha256:${createHash('sha256').update('print(1)\n').digest('hex')}`);
    expect(py?.size).toBe(9);
    expect(skill.size).toBe(skill.files.reduce((total, entry) => total + entry.size, 0));
  });

  it.each([
    ['no SKILL.md', [file('README.md', 'x')], 'needs a SKILL.md'],
    ['no frontmatter', [file('SKILL.md', '# Just a title\n')], 'must begin with YAML frontmatter'],
    ['frontmatter that is not YAML', [skillMd('name: [unclosed')], 'not valid YAML'],
    ['frontmatter that is a list', [skillMd('- a\n- b')], 'must be a YAML mapping'],
    ['a duplicate key', [skillMd('name: demo\nname: demo\ndescription: d')], 'not valid YAML'],
    ['no name', [skillMd('description: d')], 'is not 1-64 lowercase'],
    ['a name against the naming rule', [skillMd('name: Bad--Name\ndescription: d')], 'is not 1-64 lowercase'],
    ['a name other than the skill', [skillMd('name: other\ndescription: d')], 'differs from'],
    ['no description', [skillMd('name: demo')], 'description is missing'],
    ['an empty description', [skillMd('name: demo\ndescription: "  "')], 'description is missing'],
    ['metadata that is not a mapping', [skillMd('name: demo\ndescription: d\nmetadata: 3')], 'metadata must be a mapping'],
    ['a reserved metadata key', [skillMd('name: demo\ndescription: d\nmetadata:\n  io.modelcontextprotocol/x: y')], 'reserved'],
    ['SKILL.md that is not UTF-8', [{ path: 'SKILL.md', data: Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe]) }], 'not UTF-8'],
  ])('refuses %s', (_case, files, message) => {
    expect(() => validateSkill('demo', files)).toThrow(message);
  });

  it('refuses an alias bomb in the frontmatter', () => {
    const aliases = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 12; level++)
      aliases.push(
        `${String.fromCharCode(97 + level)}: &${String.fromCharCode(97 + level)} [${Array(10)
          .fill(`*${String.fromCharCode(96 + level)}`)
          .join(', ')}]`,
      );
    expect(() => readFrontmatter(`---\n${aliases.join('\n')}\n---\n`)).toThrow();
  });
});

describe('directoryChildren', () => {
  const skill = {
    name: 'pdf',
    files: ['SKILL.md', 'references/FORMS.md', 'templates/a.md', 'templates/regional/eu.md'].map((path) => ({
      path,
      digest: 'sha256:x',
      size: 1,
      mimeType: 'text/markdown',
    })),
  };

  it('lists the root: files as resources, folders once as directories', () => {
    expect(directoryChildren(skill, '')).toEqual([
      { uri: 'skill://pdf/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown', size: 1 },
      { uri: 'skill://pdf/references', name: 'references', mimeType: 'inode/directory' },
      { uri: 'skill://pdf/templates', name: 'templates', mimeType: 'inode/directory' },
    ]);
  });

  it('lists a folder one level deep', () => {
    expect(directoryChildren(skill, 'templates')?.map((child) => [child.uri, child.mimeType])).toEqual([
      ['skill://pdf/templates/a.md', 'text/markdown'],
      ['skill://pdf/templates/regional', 'inode/directory'],
    ]);
  });

  it('has no listing for a file or a folder that does not exist', () => {
    expect(directoryChildren(skill, 'SKILL.md')).toBeUndefined();
    expect(directoryChildren(skill, 'nothing')).toBeUndefined();
    expect(directoryChildren(skill, 'temp')).toBeUndefined();
  });
});

describe('skill URIs', () => {
  it('percent-encodes path segments and reads them back', () => {
    const uri = skillFileUri('demo', 'docs/my file#1.md');
    expect(uri).toBe('skill://demo/docs/my%20file%231.md');
    expect(parseSkillUri(uri)).toEqual({ name: 'demo', path: 'docs/my file#1.md' });
    expect(parseSkillUri('skill://demo')).toEqual({ name: 'demo', path: '' });
  });

  it.each(['https://demo/SKILL.md', 'skill://', 'skill://demo/', 'skill://demo/%E0%A4%A'])('reads %s as no skill URI', (uri) => {
    expect(parseSkillUri(uri)).toBeUndefined();
  });
});
