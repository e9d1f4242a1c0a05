import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { tarArchive, zipArchive } from '@mcp-platform/shared-testing';
import { readSkillArchive, SKILL_LIMITS } from './skill-archive';

const SKILL_MD = '---\nname: demo\ndescription: A demo skill\n---\n# Demo\n';

function paths(files: Array<{ path: string }>): string[] {
  return files.map((file) => file.path).sort();
}

describe('readSkillArchive', () => {
  it('reads the files of a zip, folders left out', async () => {
    const files = await readSkillArchive(zipArchive({ 'SKILL.md': SKILL_MD, 'references/GUIDE.md': 'guide', 'references/': new Uint8Array() }));
    expect(paths(files)).toEqual(['SKILL.md', 'references/GUIDE.md']);
    expect(files.find((file) => file.path === 'SKILL.md')?.data.toString()).toBe(SKILL_MD);
  });

  it('reads a tar and a gzipped tar alike', async () => {
    const plain = await tarArchive([
      { name: 'SKILL.md', content: SKILL_MD },
      { name: 'scripts', type: 'directory' },
      { name: 'scripts/run.sh', content: 'echo hi' },
    ]);
    expect(paths(await readSkillArchive(plain))).toEqual(['SKILL.md', 'scripts/run.sh']);
    const files = await readSkillArchive(gzipSync(plain));
    expect(files.find((file) => file.path === 'scripts/run.sh')?.data.toString()).toBe('echo hi');
  });

  it('reads an archive of the skill folder as the folder content, archiver junk left out', async () => {
    const files = await readSkillArchive(zipArchive({ 'demo/SKILL.md': SKILL_MD, 'demo/a.md': 'a', '__MACOSX/demo/._a.md': 'x', 'demo/.DS_Store': 'x' }));
    expect(paths(files)).toEqual(['SKILL.md', 'a.md']);
  });

  it.each([
    ['a parent segment', '../evil.md'],
    ['a parent segment inside', 'references/../../evil.md'],
    ['an absolute path', '/etc/passwd'],
    ['a drive path', 'C:/evil.md'],
    ['a backslash', 'references\\..\\evil.md'],
    ['a control character', 'evil\u0001.md'],
  ])('refuses a zip entry with %s', async (_case, path) => {
    await expect(readSkillArchive(zipArchive({ 'SKILL.md': SKILL_MD, [path]: 'x' }))).rejects.toMatchObject({ code: 'BAD_ARCHIVE' });
  });

  it('refuses links and devices in a tar', async () => {
    const linked = await tarArchive([
      { name: 'SKILL.md', content: SKILL_MD },
      { name: 'passwd', type: 'symlink', linkname: '/etc/passwd' },
    ]);
    await expect(readSkillArchive(linked)).rejects.toMatchObject({ code: 'BAD_ARCHIVE', message: expect.stringContaining('symlink') });
    const hardLinked = await tarArchive([
      { name: 'SKILL.md', content: SKILL_MD },
      { name: 'copy', type: 'link', linkname: 'SKILL.md' },
    ]);
    await expect(readSkillArchive(hardLinked)).rejects.toMatchObject({ code: 'BAD_ARCHIVE' });
  });

  it('refuses a tar holding one path twice', async () => {
    const twice = await tarArchive([
      { name: 'SKILL.md', content: SKILL_MD },
      { name: 'SKILL.md', content: 'other' },
    ]);
    await expect(readSkillArchive(twice)).rejects.toMatchObject({ code: 'BAD_ARCHIVE', message: expect.stringContaining('twice') });
  });

  it('refuses a zip bomb by its ratio before it fills memory', async () => {
    const bomb = zipArchive({ 'SKILL.md': SKILL_MD, 'zeros.bin': new Uint8Array(8 * 1024 * 1024) });
    expect(bomb.length).toBeLessThan(64 * 1024);
    await expect(readSkillArchive(bomb)).rejects.toMatchObject({ code: 'SKILL_TOO_LARGE', message: expect.stringContaining('bomb') });
  });

  it('refuses more unpacked bytes than a skill may hold, whatever the ratio', async () => {
    const limits = { ...SKILL_LIMITS, maxTotalBytes: 1000, maxRatio: 1_000_000 };
    await expect(readSkillArchive(zipArchive({ 'SKILL.md': SKILL_MD, 'big.txt': 'x'.repeat(1001) }), limits)).rejects.toMatchObject({
      code: 'SKILL_TOO_LARGE',
    });
  });

  it('refuses more files than a skill may hold', async () => {
    const files: Record<string, string> = { 'SKILL.md': SKILL_MD };
    for (let index = 0; index < SKILL_LIMITS.maxFiles; index++) files[`f/${index}.txt`] = '';
    await expect(readSkillArchive(zipArchive(files))).rejects.toMatchObject({ code: 'SKILL_TOO_LARGE', message: expect.stringContaining('512') });
  });

  it('refuses an archive over its own size limit before reading it', async () => {
    await expect(readSkillArchive(Buffer.alloc(SKILL_LIMITS.maxArchiveBytes + 1))).rejects.toMatchObject({ code: 'SKILL_TOO_LARGE' });
  });

  it('refuses a gzip stream that unpacks past the limit', async () => {
    const limits = { ...SKILL_LIMITS, maxTotalBytes: 1000, maxFiles: 1 };
    await expect(readSkillArchive(gzipSync(Buffer.alloc(100_000)), limits)).rejects.toMatchObject({ code: 'SKILL_TOO_LARGE' });
  });

  it.each([
    ['text', Buffer.from('just some text, not an archive')],
    ['a truncated zip', zipArchive({ 'SKILL.md': SKILL_MD.repeat(50) }).subarray(0, 60)],
    ['broken gzip', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02])],
  ])('refuses %s as a bad archive', async (_case, bytes) => {
    await expect(readSkillArchive(bytes)).rejects.toMatchObject({ code: 'BAD_ARCHIVE' });
  });
});
