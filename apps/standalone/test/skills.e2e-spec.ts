import { createHash, randomBytes } from 'node:crypto';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { GetSkillResultSchema, ListSkillsResultSchema, ReadResourceDirectoryResultSchema } from '@modelcontextprotocol/core/ext/skills';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpUrl, MODERN_PROTOCOL_VERSION, tarArchive, waitUntil, zipArchive } from '@mcp-platform/shared-testing';
import { AdminApi, createPublicTenant, PUBLIC_SERVER, resourcePath, uniqueTenant } from './admin-api';
import { adminUserOf, distributedMode, embeddedMode, type Platform, type PlatformMode } from './platforms';

/**
 * Agent skills (SEP-2640) end to end: a tenant admin uploads a skill folder as an archive through the
 * admin API; clients of both eras (the official SDKs, the 2.x one pinned to 2026-07-28 with its
 * verifying `SkillsClient`) list it, read its files and walk its folders; a new version reaches a
 * legacy client's notifications; bad archives are refused with nothing stored. Both modes.
 */

const NAME = 'deploy-guide';
const SKILL_MD = `---
name: ${NAME}
description: Deploy the service safely, with a checklist and a rollback script
license: MIT
metadata:
  owner: platform-team
---

# Deploying

Go through [the checklist](references/CHECKLIST.md) first; if anything fails, run \`scripts/rollback.sh\`.
`;
const CHECKLIST = '# Checklist\n\n- The migration ran on staging.\n- The dashboards are green.\n';
const ROLLBACK = '#!/bin/sh\nset -eu\necho rolling back\n';
const LOGO = randomBytes(300);

const digest = (bytes: string | Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const skillUri = (path: string) => `skill://${NAME}/${path}`;

/** The extension's results as a 2025-11-25 session gets them: without the 2026-07-28 caching fields. */
const LegacyListSkills = ListSkillsResultSchema.omit({ ttlMs: true, cacheScope: true });
const LegacyGetSkill = GetSkillResultSchema.omit({ ttlMs: true, cacheScope: true });
const LegacyReadDirectory = ReadResourceDirectoryResultSchema.omit({ ttlMs: true, cacheScope: true });

const modes: PlatformMode[] = [embeddedMode(), distributedMode(2)];

describe.each(modes)('skills, $name mode', (mode) => {
  let platform: Platform;
  let admin: AdminApi;
  let serverUrl: string;
  const tenant = uniqueTenant('e2e-skills');
  const skillsPath = `/tenants/${tenant}/skills`;

  beforeAll(async () => {
    platform = await mode.boot();
    serverUrl = mcpUrl(platform.baseUrl, tenant, PUBLIC_SERVER);
    admin = await AdminApi.signIn(platform, adminUserOf(platform));
    await createPublicTenant(admin, tenant, 'Skills (e2e)');
  });

  afterAll(async () => {
    await platform?.stop();
  });

  async function modern() {
    const client = new ModernClient({ name: 'e2e-skills-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } });
    await client.connect(new ModernTransport(new URL(serverUrl)));
    return client;
  }

  async function legacy() {
    const client = new LegacyClient({ name: 'e2e-skills-legacy', version: '1.0.0' });
    const transport = new LegacyTransport(new URL(serverUrl));
    await client.connect(transport);
    return { client, close: async () => (await transport.terminateSession().catch(() => undefined), await client.close()) };
  }

  it('uploads a zipped skill folder and serves it, verified, to the 2026-07-28 client', async () => {
    const upload = await admin.requestBytes(
      'PUT',
      `${skillsPath}/${NAME}`,
      zipArchive({
        [`${NAME}/SKILL.md`]: SKILL_MD,
        [`${NAME}/references/CHECKLIST.md`]: CHECKLIST,
        [`${NAME}/scripts/rollback.sh`]: ROLLBACK,
        [`${NAME}/assets/logo.png`]: LOGO,
      }),
      'application/zip',
    );
    expect(upload.status, JSON.stringify(upload.body)).toBe(200);
    expect(upload.body).toMatchObject({
      created: true,
      skill: { name: NAME, uri: skillUri('SKILL.md'), servers: [], frontmatter: { name: NAME, license: 'MIT', metadata: { owner: 'platform-team' } } },
    });
    const files = (upload.body as { skill: { files: Array<{ path: string; digest: string; size: number }> } }).skill.files;
    expect(files.map(({ path, digest: fileDigest, size }) => [path, fileDigest, size])).toEqual([
      ['SKILL.md', digest(SKILL_MD), Buffer.byteLength(SKILL_MD)],
      ['assets/logo.png', digest(LOGO), LOGO.length],
      ['references/CHECKLIST.md', digest(CHECKLIST), Buffer.byteLength(CHECKLIST)],
      ['scripts/rollback.sh', digest(ROLLBACK), Buffer.byteLength(ROLLBACK)],
    ]);

    const client = await modern();
    try {
      const skills = new SkillsClient(client);
      expect(skills.supported).toBe(true);
      expect(skills.directoryRead).toBe(true);
      const listing = await skills.list();
      expect(listing.skills.map((skill) => skill.uri)).toEqual([skillUri('SKILL.md')]);
      expect(listing).toMatchObject({ ttlMs: expect.any(Number), cacheScope: 'public' });
      const entry = listing.skills[0]!;
      // read() checks each file's size and digest against the entry, and SKILL.md's frontmatter too.
      const manifest = await skills.read(entry);
      expect(manifest).toMatchObject({
        verified: true,
        mimeType: 'text/markdown',
        frontmatter: { name: NAME, description: expect.stringContaining('Deploy') },
      });
      const checklist = await skills.read(entry, 'references/CHECKLIST.md');
      expect(Buffer.from(checklist.bytes).toString('utf8')).toBe(CHECKLIST);
      const logo = await skills.read(entry, 'assets/logo.png');
      expect(Buffer.from(logo.bytes).equals(LOGO)).toBe(true);
      expect((await skills.get(entry.uri)).skill).toEqual(entry);

      const root = await skills.readDirectory(`skill://${NAME}`);
      expect(root.resources.map(({ uri, mimeType }) => [uri, mimeType])).toEqual([
        [skillUri('SKILL.md'), 'text/markdown'],
        [skillUri('assets'), 'inode/directory'],
        [skillUri('references'), 'inode/directory'],
        [skillUri('scripts'), 'inode/directory'],
      ]);
      expect((await skills.readDirectory(skillUri('references'))).resources.map((child) => child.uri)).toEqual([skillUri('references/CHECKLIST.md')]);
      await expect(skills.readDirectory(skillUri('SKILL.md'))).rejects.toMatchObject({ code: -32602 });
      await expect(skills.get(`skill://no-such-skill/SKILL.md`)).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
  });

  it('serves the same skill to a 2025-11-25 session, which hears a new version of it', async () => {
    const { client, close } = await legacy();
    try {
      expect(client.getServerCapabilities()?.extensions?.['io.modelcontextprotocol/skills']).toEqual({ directoryRead: true });
      const listing = await client.request({ method: 'skills/list', params: {} }, LegacyListSkills);
      expect(listing.skills.map((skill) => skill.uri)).toEqual([skillUri('SKILL.md')]);
      const got = await client.request({ method: 'skills/get', params: { uri: skillUri('SKILL.md') } }, LegacyGetSkill);
      expect(got.skill).toEqual(listing.skills[0]);
      const scripts = await client.request({ method: 'resources/directory/read', params: { uri: skillUri('scripts') } }, LegacyReadDirectory);
      expect(scripts.resources).toEqual([
        { uri: skillUri('scripts/rollback.sh'), name: 'rollback.sh', mimeType: 'application/x-sh', size: Buffer.byteLength(ROLLBACK) },
      ]);
      const read = await client.readResource({ uri: skillUri('references/CHECKLIST.md') });
      expect(read.contents).toEqual([{ uri: skillUri('references/CHECKLIST.md'), mimeType: 'text/markdown', text: CHECKLIST }]);
      // SKILL.md is also an ordinary resource, named and described from its frontmatter.
      const { resources } = await client.listResources();
      expect(resources.find((resource) => resource.uri === skillUri('SKILL.md'))).toMatchObject({
        name: NAME,
        description: expect.stringContaining('Deploy'),
        mimeType: 'text/markdown',
      });

      const heard: string[] = [];
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void heard.push(`updated ${notification.params.uri}`));
      client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void heard.push('list_changed'));
      await client.subscribeResource({ uri: skillUri('references/CHECKLIST.md') });
      const newChecklist = `${CHECKLIST}- The on-call engineer knows.\n`;
      const replaced = await admin.requestBytes(
        'PUT',
        `${skillsPath}/${NAME}`,
        zipArchive({ 'SKILL.md': SKILL_MD, 'references/CHECKLIST.md': newChecklist, 'scripts/rollback.sh': ROLLBACK }),
        'application/zip',
      );
      expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
      expect(replaced.body).toMatchObject({ created: false, skill: { version: 2 } });
      await waitUntil(async () => heard.includes(`updated ${skillUri('references/CHECKLIST.md')}`) && heard.includes('list_changed'), { timeoutMs: 15_000 });
      const again = await client.request({ method: 'skills/get', params: { uri: skillUri('SKILL.md') } }, LegacyGetSkill);
      expect(again.skill.resources).toContainEqual({
        uri: skillUri('references/CHECKLIST.md'),
        digest: digest(newChecklist),
        size: Buffer.byteLength(newChecklist),
      });
      // The logo left with the old version.
      expect(again.skill.resources).not.toContainEqual(expect.objectContaining({ uri: skillUri('assets/logo.png') }));
      await expect(client.readResource({ uri: skillUri('assets/logo.png') })).rejects.toMatchObject({ code: -32002 });
    } finally {
      await close();
    }
  });

  it.each([
    ['a zip bomb', () => zipArchive({ 'SKILL.md': SKILL_MD.replaceAll(NAME, 'bomb'), 'zeros.bin': new Uint8Array(16 * 1024 * 1024) }), 'bomb', 413, /bomb/],
    [
      'an entry leaving the folder',
      () => zipArchive({ 'SKILL.md': SKILL_MD.replaceAll(NAME, 'escape'), '../../etc/cron.d/x': 'x' }),
      'escape',
      400,
      /leaves its folder/,
    ],
    ['an absolute entry', () => zipArchive({ 'SKILL.md': SKILL_MD.replaceAll(NAME, 'absolute'), '/etc/passwd': 'x' }), 'absolute', 400, /absolute path/],
    [
      'a symbolic link',
      () =>
        tarArchive([
          { name: 'SKILL.md', content: SKILL_MD.replaceAll(NAME, 'linked') },
          { name: 'passwd', type: 'symlink', linkname: '/etc/passwd' },
        ]),
      'linked',
      400,
      /symlink/,
    ],
    ['a frontmatter naming another skill', () => zipArchive({ 'SKILL.md': SKILL_MD }), 'other-name', 400, /differs from the skill's name/],
    ['a SKILL.md without frontmatter', () => zipArchive({ 'SKILL.md': '# No frontmatter\n' }), 'no-frontmatter', 400, /YAML frontmatter/],
    ['no SKILL.md', () => zipArchive({ 'README.md': '# hi\n' }), 'no-manifest', 400, /needs a SKILL.md/],
    ['a file that is no archive', () => Promise.resolve(Buffer.from('hello, not an archive')), 'not-archive', 400, /neither a zip nor a tar/],
  ])('refuses %s clearly and stores nothing', async (_case, archive, name, status, message) => {
    const answer = await admin.requestBytes('PUT', `${skillsPath}/${name}`, await archive(), 'application/octet-stream');
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    expect((answer.body as { error: { message: string } }).error.message).toMatch(message);
    expect((await admin.request('GET', `${skillsPath}/${name}`)).status).toBe(404);
    const client = await modern();
    try {
      expect((await new SkillsClient(client).list()).skills.map((skill) => skill.uri)).toEqual([skillUri('SKILL.md')]);
    } finally {
      await client.close();
    }
  });

  it('keeps skill:// URIs to the skills API, moves a skill between servers, deletes it with its files', async () => {
    const plain = await admin.request('PUT', resourcePath(tenant, `skill://${NAME}/extra.md`), { name: 'extra', text: 'sneaky' });
    expect(plain.status).toBe(400);
    expect((await admin.request('DELETE', resourcePath(tenant, skillUri('SKILL.md')))).status).toBe(400);

    const moved = await admin.expect(200, 'PUT', `${skillsPath}/${NAME}/servers`, { servers: ['elsewhere'] });
    expect(moved.body).toMatchObject({ servers: ['elsewhere'] });
    const client = await modern();
    try {
      const skills = new SkillsClient(client);
      expect((await skills.list()).skills).toEqual([]);
      await expect(skills.get(skillUri('SKILL.md'))).rejects.toMatchObject({ code: -32602 });
      await admin.expect(200, 'PUT', `${skillsPath}/${NAME}/servers`, { servers: [] });
      expect((await skills.list()).skills).toHaveLength(1);

      expect((await admin.request('DELETE', `${skillsPath}/${NAME}`)).status).toBe(204);
      expect((await admin.request('GET', `${skillsPath}/${NAME}`)).status).toBe(404);
      expect((await skills.list()).skills).toEqual([]);
      await expect(client.readResource({ uri: skillUri('SKILL.md') })).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
  });

  it('serves the seeded skill of demo/default', async () => {
    const listed = await admin.expect(200, 'GET', '/tenants/demo/skills');
    expect(listed.body).toMatchObject({
      skills: [{ name: 'commit-messages', servers: ['default'], files: [{ path: 'SKILL.md' }, { path: 'examples/GOOD.md' }] }],
    });
  });
});
