import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Principal, resourceStore } from '@mcp-platform/protocol-contracts';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { errorOf, tarGzArchive } from '@mcp-platform/shared-testing';
import { RESOURCE_STORE_CONNECTION } from '../src';
import { bootResourceStore, setups } from './resource-store.setups';

/**
 * Skills (`skill.contracts.ts`) against a real store: an archive uploaded in chunks and written at its
 * commit, served per virtual server and tenant, replaced with events for the files that changed,
 * refused over the quota with nothing left behind, written concurrently, and deleted with its tenant.
 */

const run = `sk${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const CHUNK = resourceStore.RESOURCE_CONTENT_CHUNK_BYTES;
const QUOTA_BYTES = 64 * 1024;

const onServer = (tenant: string, server = 'main') => ({ tenant, server, public: false });
const asReaderOf = (tenant: string) => ({ context: { principal: { subject: 'reader', tenant, scopes: [], anonymous: false } satisfies Principal } });
const skillMd = (name: string, description = 'A skill of the integration tests') => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`;

let tenants = 0;
const freshTenant = () => `t${++tenants}`;

describe.each(setups(run))('skills over $name', (setup) => {
  let app: INestApplication;
  let bus: MessageBus;
  let dataSource: DataSource;
  let drop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const database = await setup.database();
    drop = database.drop;
    app = await bootResourceStore(setup.messaging(), database.options, false, { tenantQuotaBytes: QUOTA_BYTES });
    bus = app.get(MessageBus);
    dataSource = app.get<DataSource>(getDataSourceToken(RESOURCE_STORE_CONNECTION));
  });

  afterAll(async () => {
    try {
      await app?.close();
    } finally {
      await drop?.();
    }
  });

  /** Begin, append every chunk, commit: what the admin API's skill upload does. */
  async function upload(tenant: string, name: string, archive: Buffer, servers?: string[]) {
    const { uploadId } = await bus.request(resourceStore.beginSkillUpload, { tenant, name, ...(servers ? { servers } : {}) });
    for (let offset = 0; offset < archive.length; offset += CHUNK) {
      await bus.request(resourceStore.appendResourceUpload, { tenant, uploadId, offset, data: archive.subarray(offset, offset + CHUNK).toString('base64') });
    }
    return bus.request(resourceStore.commitSkillUpload, { tenant, uploadId, totalBytes: archive.length });
  }

  async function rowsOf(tenant: string): Promise<{ skills: number; files: number; uploads: number }> {
    const count = async (sql: string) => Number(((await dataSource.query(sql, [tenant])) as Array<{ n: number }>)[0]?.n);
    return {
      skills: await count(`SELECT count(*)::int AS n FROM "resource_store"."skills" WHERE "tenant" = $1`),
      files: await count(`SELECT count(*)::int AS n FROM "resource_store"."resources" WHERE "tenant" = $1 AND "skill" IS NOT NULL`),
      uploads: await count(`SELECT count(*)::int AS n FROM "resource_store"."resource_uploads" WHERE "tenant" = $1`),
    };
  }

  /** Runs `body`, collecting the `resourceUpdated` URIs of `tenant` it caused (a marker event closes the window). */
  async function updatesDuring(tenant: string, body: () => Promise<void>): Promise<string[]> {
    const updated: string[] = [];
    let marked = false;
    const subscriptions = [
      bus.subscribe(resourceStore.resourceUpdated, (payload) => payload.tenant === tenant && updated.push(payload.uri)),
      bus.subscribe(resourceStore.listChanged, (payload) => payload.tenant === tenant && payload.servers[0] === 'marker' && (marked = true)),
    ];
    await bus.flush();
    try {
      await body();
      bus.emit(resourceStore.listChanged, { tenant, servers: ['marker'], lists: ['prompts'] });
      await expect.poll(() => marked).toBe(true);
      return updated.sort();
    } finally {
      for (const subscription of subscriptions) subscription.unsubscribe();
    }
  }

  it('writes an uploaded tar.gz at its commit and serves it only on its servers and to its own tenant', async () => {
    const tenant = freshTenant();
    const committed = await upload(tenant, 'guide', await tarGzArchive({ 'guide/SKILL.md': skillMd('guide'), 'guide/docs/a.md': 'a' }), ['main']);
    expect(committed).toMatchObject({ created: true, skill: { name: 'guide', servers: ['main'], files: [{ path: 'SKILL.md' }, { path: 'docs/a.md' }] } });
    expect(await rowsOf(tenant)).toEqual({ skills: 1, files: 2, uploads: 0 });

    const listing = await bus.request(resourceStore.listSkills, onServer(tenant), asReaderOf(tenant));
    expect(listing.skills.map((skill) => skill.uri)).toEqual(['skill://guide/SKILL.md']);
    expect((await bus.request(resourceStore.listSkills, onServer(tenant, 'other'), asReaderOf(tenant))).skills).toEqual([]);
    const read = await bus.request(resourceStore.readResource, { ...onServer(tenant), uri: 'skill://guide/docs/a.md' }, asReaderOf(tenant));
    expect(read.contents).toEqual([{ uri: 'skill://guide/docs/a.md', mimeType: 'text/markdown', text: 'a' }]);
    const folder = await bus.request(resourceStore.readSkillDirectory, { ...onServer(tenant), uri: 'skill://guide/docs' }, asReaderOf(tenant));
    expect(folder.resources).toEqual([{ uri: 'skill://guide/docs/a.md', name: 'a.md', mimeType: 'text/markdown', size: 1 }]);

    expect(await errorOf(bus.request(resourceStore.listSkills, onServer(tenant), asReaderOf('someone-else')))).toMatchObject({ code: 'FORBIDDEN' });
    expect(
      await errorOf(bus.request(resourceStore.getSkill, { ...onServer(tenant, 'other'), uri: 'skill://guide/SKILL.md' }, asReaderOf(tenant))),
    ).toMatchObject({
      code: 'NOT_FOUND',
      data: { uri: 'skill://guide/SKILL.md' },
    });
  });

  it('replaces a skill whole, announcing only the files whose bytes changed or went', async () => {
    const tenant = freshTenant();
    await upload(tenant, 'notes', await tarGzArchive({ 'SKILL.md': skillMd('notes'), 'same.md': 'same', 'changed.md': 'v1', 'gone.md': 'bye' }));
    const updated = await updatesDuring(tenant, async () => {
      const replaced = await upload(
        tenant,
        'notes',
        await tarGzArchive({ 'SKILL.md': skillMd('notes'), 'same.md': 'same', 'changed.md': 'v2', 'new.md': 'hi' }),
      );
      expect(replaced).toMatchObject({ created: false, skill: { version: 2 } });
    });
    expect(updated).toEqual(['skill://notes/changed.md', 'skill://notes/gone.md']);
    expect(await rowsOf(tenant)).toEqual({ skills: 1, files: 4, uploads: 0 });
    expect(await errorOf(bus.request(resourceStore.readResource, { ...onServer(tenant), uri: 'skill://notes/gone.md' }, asReaderOf(tenant)))).toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('refuses a skill over the tenant quota, a bad archive and a plain resource under skill://, leaving nothing behind', async () => {
    const tenant = freshTenant();
    const big = await tarGzArchive({ 'SKILL.md': skillMd('big'), 'data.txt': 'x'.repeat(QUOTA_BYTES) });
    expect(await errorOf(upload(tenant, 'big', big))).toMatchObject({ code: 'INVALID_PARAMS', data: { quotaBytes: QUOTA_BYTES } });
    expect(await errorOf(upload(tenant, 'broken', Buffer.from('not an archive')))).toMatchObject({ code: 'INVALID_PARAMS', data: { code: 'BAD_ARCHIVE' } });
    expect(await errorOf(upload(tenant, 'misnamed', await tarGzArchive({ 'SKILL.md': skillMd('other') })))).toMatchObject({
      code: 'INVALID_PARAMS',
      data: { code: 'BAD_SKILL' },
    });
    expect(await rowsOf(tenant)).toEqual({ skills: 0, files: 0, uploads: 0 });
    const plain = bus.request(resourceStore.putResourceDefinition, { tenant, resource: { uri: 'skill://big/SKILL.md', name: 'sneaky', text: 'x' } });
    expect(await errorOf(plain)).toMatchObject({ code: 'INVALID_PARAMS' });
    const intoResource = bus.request(resourceStore.beginResourceUpload, { tenant, uri: 'skill://big/x.bin', mimeType: 'application/octet-stream', name: 'x' });
    expect(await errorOf(intoResource)).toMatchObject({ code: 'INVALID_PARAMS' });
  });

  it('keeps one consistent skill when uploads of the same name commit at once', async () => {
    const tenant = freshTenant();
    const versions = await Promise.all(
      [1, 2, 3, 4].map(async (version) =>
        tarGzArchive({
          'SKILL.md': skillMd('racy', `version ${version}`),
          ...Object.fromEntries(Array.from({ length: version }, (_, index) => [`f${index}.md`, `${version}`])),
        }),
      ),
    );
    const outcomes = await Promise.all(versions.map((archive) => upload(tenant, 'racy', archive)));
    expect(outcomes.filter((outcome) => outcome.created)).toHaveLength(1);
    const { skill } = await bus.request(resourceStore.getSkill, { ...onServer(tenant), uri: 'skill://racy/SKILL.md' }, asReaderOf(tenant));
    const version = Number(/version (\d)/.exec(String(skill.frontmatter['description']))?.[1]);
    expect(skill.resources).toHaveLength(version + 1);
    expect(await rowsOf(tenant)).toEqual({ skills: 1, files: version + 1, uploads: 0 });
  });

  it('deletes a skill with its files, and a tenant with its skills', async () => {
    const tenant = freshTenant();
    await upload(tenant, 'one', await tarGzArchive({ 'SKILL.md': skillMd('one'), 'a.md': 'a' }));
    await upload(tenant, 'two', await tarGzArchive({ 'SKILL.md': skillMd('two') }));
    const updated = await updatesDuring(tenant, async () => {
      await bus.request(resourceStore.deleteSkill, { tenant, name: 'one' });
    });
    expect(updated).toEqual(['skill://one/SKILL.md', 'skill://one/a.md']);
    expect(await rowsOf(tenant)).toEqual({ skills: 1, files: 1, uploads: 0 });
    await expect(bus.request(resourceStore.deleteTenantContent, { tenant })).resolves.toMatchObject({ skills: 1, resources: 1 });
    expect(await rowsOf(tenant)).toEqual({ skills: 0, files: 0, uploads: 0 });
  });
});
