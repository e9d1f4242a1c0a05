import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Principal, resourceStore } from '@mcp-platform/protocol-contracts';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { errorOf } from '@mcp-platform/shared-testing';
import { bootResourceStore, setups, TEST_QUOTA_BYTES } from './resource-store.setups';

/** The catalog administration RPCs (`resource-admin.contracts.ts`) against a real store. */

const run = `ra${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const TENANT = 'acme';

const principal: Principal = { subject: 'reader', tenant: TENANT, scopes: [], anonymous: false };
const asReader = { context: { principal } };
const onServer = (server: string) => ({ tenant: TENANT, server, public: false });

describe.each(setups(run))('resource store administration over $name', (setup) => {
  let app: INestApplication;
  let bus: MessageBus;
  let drop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const database = await setup.database();
    drop = database.drop;
    app = await bootResourceStore(setup.messaging(), database.options, false);
    bus = app.get(MessageBus);
  });

  afterAll(async () => {
    try {
      await app?.close();
    } finally {
      await drop?.();
    }
  });

  /** Runs `body`, collecting the change events of the tenant it caused. */
  async function withEvents(body: () => Promise<void>) {
    const updated: string[] = [];
    const changed: Array<{ tenant: string; servers: string[]; lists: string[] }> = [];
    const subscriptions = [
      bus.subscribe(resourceStore.resourceUpdated, (payload) => {
        if (payload.tenant === TENANT) updated.push(payload.uri);
      }),
      bus.subscribe(resourceStore.listChanged, (payload) => {
        if (payload.tenant === TENANT) changed.push(payload);
      }),
    ];
    await bus.flush();
    try {
      await body();
      // A marker after the body: once it arrives, everything the body announced has too.
      const marker = { tenant: TENANT, servers: ['marker'], lists: ['prompts' as const] };
      bus.emit(resourceStore.listChanged, marker);
      await expect.poll(() => changed.some((event) => event.servers[0] === 'marker')).toBe(true);
      return { updated, changed: changed.filter((event) => event.servers[0] !== 'marker') };
    } finally {
      for (const subscription of subscriptions) subscription.unsubscribe();
    }
  }

  it('puts, gets, lists and deletes a text resource, announcing each change', async () => {
    const resource = { uri: 'acme://guide', name: 'guide', mimeType: 'text/markdown', text: '# Guide', servers: ['docs'] };
    const events = await withEvents(async () => {
      await expect(bus.request(resourceStore.putResourceDefinition, { tenant: TENANT, resource })).resolves.toEqual({
        created: true,
        resource: { ...resource, size: 7 },
      });
      await expect(bus.request(resourceStore.putResourceDefinition, { tenant: TENANT, resource })).resolves.toMatchObject({ created: false });
      await expect(bus.request(resourceStore.getResourceDefinition, { tenant: TENANT, uri: resource.uri })).resolves.toEqual({ ...resource, size: 7 });
      await expect(bus.request(resourceStore.listResourceDefinitions, { tenant: TENANT })).resolves.toEqual({
        resources: [{ uri: resource.uri, name: 'guide', mimeType: 'text/markdown', servers: ['docs'], size: 7 }],
      });
      await expect(bus.request(resourceStore.readResource, { ...onServer('docs'), uri: resource.uri }, asReader)).resolves.toMatchObject({
        contents: [{ text: '# Guide' }],
      });
      await expect(bus.request(resourceStore.deleteResourceDefinition, { tenant: TENANT, uri: resource.uri })).resolves.toEqual({ deleted: true });
    });
    expect(events.updated).toEqual([resource.uri]);
    expect(events.changed).toEqual([
      { tenant: TENANT, servers: ['docs'], lists: ['resources'] },
      { tenant: TENANT, servers: ['docs'], lists: ['resources'] },
    ]);
    expect((await errorOf(bus.request(resourceStore.readResource, { ...onServer('docs'), uri: resource.uri }, asReader))).code).toBe('NOT_FOUND');
    await expect(bus.request(resourceStore.listResourceDefinitions, { tenant: TENANT })).resolves.toEqual({ resources: [] });
  });

  it('stores a binary upload and serves it base64 with its size in bytes', async () => {
    const bytes = Buffer.from([0, 1, 2, 253, 254, 255]);
    const resource = { uri: 'acme://logo.bin', name: 'logo', mimeType: 'application/octet-stream', blob: bytes.toString('base64') };
    const put = await bus.request(resourceStore.putResourceDefinition, { tenant: TENANT, resource });
    expect(put).toEqual({ created: true, resource: { ...resource, servers: [], size: bytes.length } });
    await expect(bus.request(resourceStore.readResource, { ...onServer('any'), uri: resource.uri }, asReader)).resolves.toMatchObject({
      contents: [{ uri: resource.uri, mimeType: 'application/octet-stream', blob: bytes.toString('base64') }],
    });
    await bus.request(resourceStore.deleteResourceDefinition, { tenant: TENANT, uri: resource.uri });
  });

  it('refuses content over the quota with INVALID_PARAMS and its numbers', async () => {
    const error = await errorOf(
      bus.request(resourceStore.putResourceDefinition, {
        tenant: TENANT,
        resource: { uri: 'acme://big', name: 'big', blob: Buffer.alloc(TEST_QUOTA_BYTES + 1).toString('base64') },
      }),
    );
    expect(error).toMatchObject({ code: 'INVALID_PARAMS', data: { quotaBytes: TEST_QUOTA_BYTES, usedBytes: 0, requestedBytes: TEST_QUOTA_BYTES + 1 } });
    expect((await errorOf(bus.request(resourceStore.getResourceDefinition, { tenant: TENANT, uri: 'acme://big' }))).code).toBe('NOT_FOUND');
  });

  it('refuses an invalid definition with INVALID_PARAMS and the issues', async () => {
    const both = await errorOf(
      bus.request(resourceStore.putResourceDefinition, { tenant: TENANT, resource: { uri: 'acme://x', name: 'x', text: 'a', blob: 'AA==' } }),
    );
    expect(both.code).toBe('INVALID_PARAMS');
    const template = await errorOf(
      bus.request(resourceStore.putResourceTemplateDefinition, { tenant: TENANT, resourceTemplate: { name: 'bad', uriTemplate: 'acme://{+path}', text: '' } }),
    );
    expect(template).toMatchObject({ code: 'INVALID_PARAMS', data: { issues: [expect.objectContaining({ path: ['uriTemplate'] })] } });
  });

  it('puts, lists, reads through, and deletes a resource template', async () => {
    const resourceTemplate = { name: 'notes', uriTemplate: 'acme://notes/{topic}', mimeType: 'text/plain', text: 'About {topic}' };
    const events = await withEvents(async () => {
      await expect(bus.request(resourceStore.putResourceTemplateDefinition, { tenant: TENANT, resourceTemplate })).resolves.toEqual({
        created: true,
        resourceTemplate: { ...resourceTemplate, completions: {}, servers: [] },
      });
      await expect(bus.request(resourceStore.listResourceTemplateDefinitions, { tenant: TENANT })).resolves.toEqual({
        resourceTemplates: [{ ...resourceTemplate, completions: {}, servers: [] }],
      });
      await expect(bus.request(resourceStore.readResource, { ...onServer('any'), uri: 'acme://notes/nats' }, asReader)).resolves.toMatchObject({
        contents: [{ text: 'About nats' }],
      });
      await expect(bus.request(resourceStore.deleteResourceTemplateDefinition, { tenant: TENANT, name: 'notes' })).resolves.toEqual({ deleted: true });
    });
    expect(events.updated).toEqual([]);
    expect(events.changed).toEqual([
      { tenant: TENANT, servers: [], lists: ['resources'] },
      { tenant: TENANT, servers: [], lists: ['resources'] },
    ]);
    expect((await errorOf(bus.request(resourceStore.getResourceTemplateDefinition, { tenant: TENANT, name: 'notes' }))).code).toBe('NOT_FOUND');
  });

  it('puts, gets, lists and deletes a prompt', async () => {
    const prompt = {
      name: 'greet',
      description: 'Greets',
      arguments: [{ name: 'who', required: true }],
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'Hi {{who}}' } }],
    };
    const events = await withEvents(async () => {
      await expect(bus.request(resourceStore.putPromptDefinition, { tenant: TENANT, prompt })).resolves.toEqual({
        created: true,
        prompt: { ...prompt, servers: [], inputs: [] },
      });
      await expect(bus.request(resourceStore.getPromptDefinition, { tenant: TENANT, name: 'greet' })).resolves.toEqual({ ...prompt, servers: [], inputs: [] });
      await expect(bus.request(resourceStore.listPromptDefinitions, { tenant: TENANT })).resolves.toEqual({
        prompts: [{ ...prompt, servers: [], inputs: [] }],
      });
      await expect(bus.request(resourceStore.getPrompt, { ...onServer('any'), name: 'greet', arguments: { who: 'Ada' } }, asReader)).resolves.toMatchObject({
        messages: [{ content: { text: 'Hi Ada' } }],
      });
      await expect(bus.request(resourceStore.deletePromptDefinition, { tenant: TENANT, name: 'greet' })).resolves.toEqual({ deleted: true });
    });
    expect(events.changed).toEqual([
      { tenant: TENANT, servers: [], lists: ['prompts'] },
      { tenant: TENANT, servers: [], lists: ['prompts'] },
    ]);
  });

  it("deletes a deleted tenant's whole content (resources, templates, prompts, uploads), no other tenant's, and serves no cached read of it", async () => {
    const leaving = { tenant: 'leaving', server: 'main', public: false };
    const asLeaving = { context: { principal: { ...principal, tenant: 'leaving' } } };
    const resource = { uri: 'leaving://secret', name: 'secret', text: 'kept by the old tenant' };
    await bus.request(resourceStore.putResourceDefinition, { tenant: 'leaving', resource });
    await bus.request(resourceStore.putResourceDefinition, { tenant: 'staying', resource });
    await bus.request(resourceStore.putResourceTemplateDefinition, {
      tenant: 'leaving',
      resourceTemplate: { name: 'items', uriTemplate: 'leaving://items/{id}', text: 'item {id}' },
    });
    await bus.request(resourceStore.putPromptDefinition, {
      tenant: 'leaving',
      prompt: { name: 'greet', description: 'Greets', messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }] },
    });
    const { uploadId } = await bus.request(resourceStore.beginResourceUpload, {
      tenant: 'leaving',
      uri: 'leaving://big',
      mimeType: 'application/octet-stream',
      name: 'big',
    });
    // Read once, so this replica's cache holds it.
    await expect(bus.request(resourceStore.readResource, { ...leaving, uri: resource.uri }, asLeaving)).resolves.toMatchObject({
      contents: [{ text: resource.text }],
    });
    const changed: Array<{ servers: string[]; lists: string[] }> = [];
    const subscription = bus.subscribe(resourceStore.listChanged, (payload) => {
      if (payload.tenant === 'leaving') changed.push({ servers: payload.servers, lists: payload.lists });
    });
    await bus.flush();
    try {
      await expect(bus.request(resourceStore.deleteTenantContent, { tenant: 'leaving' })).resolves.toEqual({
        resources: 1,
        resourceTemplates: 1,
        prompts: 1,
        skills: 0,
      });
      await expect.poll(() => changed).toEqual([{ servers: [], lists: ['resources', 'prompts'] }]);
    } finally {
      subscription.unsubscribe();
    }
    await expect(bus.request(resourceStore.listResourceDefinitions, { tenant: 'leaving' })).resolves.toEqual({ resources: [] });
    await expect(bus.request(resourceStore.listResourceTemplateDefinitions, { tenant: 'leaving' })).resolves.toEqual({ resourceTemplates: [] });
    await expect(bus.request(resourceStore.listPromptDefinitions, { tenant: 'leaving' })).resolves.toEqual({ prompts: [] });
    expect((await errorOf(bus.request(resourceStore.readResource, { ...leaving, uri: resource.uri }, asLeaving))).code).toBe('NOT_FOUND');
    expect((await errorOf(bus.request(resourceStore.appendResourceUpload, { tenant: 'leaving', uploadId, offset: 0, data: 'AA==' }))).code).toBe('NOT_FOUND');
    await expect(bus.request(resourceStore.getResourceDefinition, { tenant: 'staying', uri: resource.uri })).resolves.toMatchObject({ text: resource.text });
    // Again: nothing left, nothing fails.
    await expect(bus.request(resourceStore.deleteTenantContent, { tenant: 'leaving' })).resolves.toEqual({
      resources: 0,
      resourceTemplates: 0,
      prompts: 0,
      skills: 0,
    });
  });

  it('answers NOT_FOUND for unknown items', async () => {
    for (const request of [
      () => bus.request(resourceStore.getResourceDefinition, { tenant: TENANT, uri: 'acme://none' }),
      () => bus.request(resourceStore.deleteResourceDefinition, { tenant: TENANT, uri: 'acme://none' }),
      () => bus.request(resourceStore.getResourceTemplateDefinition, { tenant: TENANT, name: 'none' }),
      () => bus.request(resourceStore.deleteResourceTemplateDefinition, { tenant: TENANT, name: 'none' }),
      () => bus.request(resourceStore.getPromptDefinition, { tenant: TENANT, name: 'none' }),
      () => bus.request(resourceStore.deletePromptDefinition, { tenant: TENANT, name: 'none' }),
    ]) {
      expect((await errorOf(request())).code).toBe('NOT_FOUND');
    }
  });
});
