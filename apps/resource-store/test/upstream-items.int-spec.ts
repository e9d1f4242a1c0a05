import 'reflect-metadata';
import { Controller, type INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isInputRequired, type Principal, resourceStore, type RpcRequest, type RpcRequestParsed, toolExecutor } from '@mcp-platform/protocol-contracts';
import { type CallContext, MessageBus, RpcError, RpcHandler, WireErrorCode } from '@mcp-platform/shared-messaging';
import { errorOf } from '@mcp-platform/shared-testing';
import { bootResourceStore, setups } from './resource-store.setups';

const run = `ru${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

const TENANT = 'upstreams';
const FILES_ID = '6f1c1f5e-8d1a-4a53-9a55-1a0b5a1a2b3c';
const OTHER_ID = '0d7e5d8c-3f51-4d69-9a3b-58f0f7c1e2a4';
const alice: Principal = { subject: 'alice', tenant: TENANT, scopes: [], anonymous: false };
const asAlice = { context: { principal: alice } };
const docs = { tenant: TENANT, server: 'docs', public: false };
const elsewhere = { tenant: TENANT, server: 'elsewhere', public: false };

/** What the fake executor heard, per RPC, with the principal it came with. */
const heard = {
  reads: [] as Array<{ request: RpcRequestParsed<typeof toolExecutor.readUpstreamResource>; principal: Principal | undefined }>,
  prompts: [] as Array<{ request: RpcRequestParsed<typeof toolExecutor.getUpstreamPrompt>; principal: Principal | undefined }>,
  completions: [] as Array<{ request: RpcRequestParsed<typeof toolExecutor.completeUpstream>; principal: Principal | undefined }>,
  clear() {
    this.reads.length = 0;
    this.prompts.length = 0;
    this.completions.length = 0;
  },
};

/** The tool executor's side of the upstream reads, on the store's bus: records each request and answers from it. */
@Controller()
class FakeUpstreamExecutor {
  @RpcHandler(toolExecutor.readUpstreamResource)
  read(request: RpcRequestParsed<typeof toolExecutor.readUpstreamResource>, context: CallContext) {
    heard.reads.push({ request, principal: context.principal });
    return { contents: [{ uri: request.uri, mimeType: 'text/plain', text: `upstream content of ${request.uri}` }] };
  }

  @RpcHandler(toolExecutor.getUpstreamPrompt)
  getPrompt(request: RpcRequestParsed<typeof toolExecutor.getUpstreamPrompt>, context: CallContext) {
    heard.prompts.push({ request, principal: context.principal });
    if (request.name === 'broken') throw new RpcError(WireErrorCode.InvalidParams, 'the upstream answered -32602: no such prompt', { upstream: 'files' });
    return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: `hello ${request.arguments?.['who'] ?? ''}` } }] };
  }

  @RpcHandler(toolExecutor.completeUpstream)
  complete(request: RpcRequestParsed<typeof toolExecutor.completeUpstream>, context: CallContext) {
    heard.completions.push({ request, principal: context.principal });
    return { completion: { values: [`${request.argument.value}-upstream`], hasMore: false } };
  }
}

type PutRequest = RpcRequest<typeof resourceStore.putUpstreamItems>;

/** The `files` source: a prompt, a resource and a template, on server `docs`. */
function filesItems(overrides: Partial<PutRequest> = {}): PutRequest {
  return {
    tenant: TENANT,
    sourceId: FILES_ID,
    source: 'files',
    servers: ['docs'],
    prompts: [
      {
        prompt: { name: 'files__greet', description: 'Greets someone', arguments: [{ name: 'who', required: true }] },
        upstreamName: 'greet',
      },
      { prompt: { name: 'files__broken', description: 'Fails upstream' }, upstreamName: 'broken' },
    ],
    resources: [{ resource: { uri: 'file:///readme.md', name: 'readme', mimeType: 'text/markdown' } }],
    resourceTemplates: [{ resourceTemplate: { name: 'files__page', uriTemplate: 'file:///pages/{page}', mimeType: 'text/plain' }, upstreamName: 'page' }],
    ...overrides,
  };
}

describe.each(setups(run))('upstream items over $name', (setup) => {
  let app: INestApplication;
  let bus: MessageBus;
  let drop: (() => Promise<void>) | undefined;

  /** The `listChanged` events of the tenant while `action` runs (a marker event closes the window). */
  async function listChangesDuring(action: () => Promise<unknown>) {
    const events: Array<{ servers: string[]; lists: string[] }> = [];
    const subscription = bus.subscribe(resourceStore.listChanged, (payload) => {
      if (payload.tenant === TENANT) events.push({ servers: payload.servers, lists: payload.lists });
    });
    await bus.flush();
    try {
      await action();
      const marker = { servers: ['marker'], lists: ['prompts' as const] };
      bus.emit(resourceStore.listChanged, { tenant: TENANT, ...marker });
      await expect.poll(() => events.some((event) => event.servers[0] === 'marker')).toBe(true);
      return events.filter((event) => event.servers[0] !== 'marker');
    } finally {
      subscription.unsubscribe();
    }
  }

  beforeAll(async () => {
    const database = await setup.database();
    drop = database.drop;
    app = await bootResourceStore(setup.messaging(), database.options, false, {}, [FakeUpstreamExecutor]);
    bus = app.get(MessageBus);
    await bus.request(resourceStore.putPromptDefinition, {
      tenant: TENANT,
      prompt: { name: 'own-prompt', description: 'The tenant’s own', messages: [{ role: 'user', content: { type: 'text', text: 'own' } }] },
    });
    await bus.request(resourceStore.putResourceDefinition, { tenant: TENANT, resource: { uri: 'file:///own.txt', name: 'own', text: 'mine' } });
  });

  afterAll(async () => {
    try {
      await app?.close();
    } finally {
      await drop?.();
    }
  });

  beforeEach(() => heard.clear());

  it('lists the items on the named servers only, beside the own ones, and an identical put changes nothing', async () => {
    const events = await listChangesDuring(async () => {
      await expect(bus.request(resourceStore.putUpstreamItems, filesItems())).resolves.toEqual({ changed: true, refused: [] });
    });
    expect(events).toEqual([
      { servers: ['docs'], lists: ['prompts'] },
      { servers: ['docs'], lists: ['resources'] },
    ]);
    const prompts = await bus.request(resourceStore.listPrompts, docs, asAlice);
    expect(prompts.prompts.map((prompt) => prompt.name)).toEqual(['files__broken', 'files__greet', 'own-prompt']);
    expect(prompts.prompts[1]).toEqual({ name: 'files__greet', description: 'Greets someone', arguments: [{ name: 'who', required: true }] });
    const resources = await bus.request(resourceStore.listResources, docs, asAlice);
    expect(resources.resources).toEqual([
      { uri: 'file:///own.txt', name: 'own', size: 4 },
      { uri: 'file:///readme.md', name: 'readme', mimeType: 'text/markdown' },
    ]);
    const templates = await bus.request(resourceStore.listResourceTemplates, docs, asAlice);
    expect(templates.resourceTemplates).toEqual([{ name: 'files__page', uriTemplate: 'file:///pages/{page}', mimeType: 'text/plain' }]);

    expect((await bus.request(resourceStore.listPrompts, elsewhere, asAlice)).prompts.map((prompt) => prompt.name)).toEqual(['own-prompt']);
    expect((await bus.request(resourceStore.listResources, elsewhere, asAlice)).resources.map((resource) => resource.uri)).toEqual(['file:///own.txt']);
    expect((await bus.request(resourceStore.listResourceTemplates, elsewhere, asAlice)).resourceTemplates).toEqual([]);

    const again = await listChangesDuring(async () => {
      await expect(bus.request(resourceStore.putUpstreamItems, filesItems())).resolves.toEqual({ changed: false, refused: [] });
    });
    expect(again).toEqual([]);
  });

  it('reads, renders and completes upstream items through the executor, by their names upstream, with the caller', async () => {
    await bus.request(resourceStore.putUpstreamItems, filesItems());
    for (let read = 0; read < 2; read++) {
      await expect(bus.request(resourceStore.readResource, { ...docs, uri: 'file:///readme.md', acceptChunks: true }, asAlice)).resolves.toEqual({
        contents: [{ uri: 'file:///readme.md', mimeType: 'text/plain', text: 'upstream content of file:///readme.md' }],
        ttlMs: 0,
        cacheScope: 'private',
      });
    }
    await expect(bus.request(resourceStore.readResource, { ...docs, uri: 'file:///pages/intro' }, asAlice)).resolves.toMatchObject({
      contents: [{ text: 'upstream content of file:///pages/intro' }],
      ttlMs: 0,
    });
    // Never cached: both reads of the resource reached the executor.
    expect(heard.reads).toEqual([
      { request: { tenant: TENANT, sourceId: FILES_ID, uri: 'file:///readme.md' }, principal: alice },
      { request: { tenant: TENANT, sourceId: FILES_ID, uri: 'file:///readme.md' }, principal: alice },
      { request: { tenant: TENANT, sourceId: FILES_ID, uri: 'file:///pages/intro' }, principal: alice },
    ]);
    // The store's own resource is still its own.
    await expect(bus.request(resourceStore.readResource, { ...docs, uri: 'file:///own.txt' }, asAlice)).resolves.toMatchObject({
      contents: [{ text: 'mine' }],
    });
    expect(heard.reads).toHaveLength(3);

    const rendered = await bus.request(resourceStore.getPrompt, { ...docs, name: 'files__greet', arguments: { who: 'Ada' }, asksByResult: true }, asAlice);
    expect(isInputRequired(rendered) ? undefined : rendered.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'hello Ada' } }]);
    expect(heard.prompts).toEqual([{ request: { tenant: TENANT, sourceId: FILES_ID, name: 'greet', arguments: { who: 'Ada' } }, principal: alice }]);

    const missing = await errorOf(bus.request(resourceStore.getPrompt, { ...docs, name: 'files__greet' }, asAlice));
    expect({ code: missing.code, data: missing.data }).toEqual({ code: 'INVALID_PARAMS', data: { missing: ['who'] } });
    expect(heard.prompts).toHaveLength(1);

    await expect(
      bus.request(resourceStore.complete, { ...docs, ref: { type: 'ref/prompt', name: 'files__greet' }, argument: { name: 'who', value: 'A' } }, asAlice),
    ).resolves.toEqual({ completion: { values: ['A-upstream'], hasMore: false } });
    await bus.request(
      resourceStore.complete,
      { ...docs, ref: { type: 'ref/resource', uri: 'file:///pages/{page}' }, argument: { name: 'page', value: 'in' }, context: { arguments: { lang: 'en' } } },
      asAlice,
    );
    expect(heard.completions).toEqual([
      { request: { tenant: TENANT, sourceId: FILES_ID, ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A' } }, principal: alice },
      {
        request: {
          tenant: TENANT,
          sourceId: FILES_ID,
          ref: { type: 'ref/resource', uri: 'file:///pages/{page}' },
          argument: { name: 'page', value: 'in' },
          context: { arguments: { lang: 'en' } },
        },
        principal: alice,
      },
    ]);
  });

  it('does not serve upstream items on a server the source does not name', async () => {
    await bus.request(resourceStore.putUpstreamItems, filesItems());
    expect((await errorOf(bus.request(resourceStore.readResource, { ...elsewhere, uri: 'file:///readme.md' }, asAlice))).code).toBe('NOT_FOUND');
    expect((await errorOf(bus.request(resourceStore.getPrompt, { ...elsewhere, name: 'files__greet', arguments: { who: 'A' } }, asAlice))).code).toBe(
      'INVALID_PARAMS',
    );
    expect(heard.reads).toEqual([]);
    expect(heard.prompts).toEqual([]);
  });

  it("passes the executor's error through as it answered it", async () => {
    await bus.request(resourceStore.putUpstreamItems, filesItems());
    const error = await errorOf(bus.request(resourceStore.getPrompt, { ...docs, name: 'files__broken' }, asAlice));
    expect({ code: error.code, message: error.message, data: error.data }).toEqual({
      code: 'INVALID_PARAMS',
      message: 'the upstream answered -32602: no such prompt',
      data: { upstream: 'files' },
    });
  });

  it("refuses names the tenant's own items or another source hold, and serves the rest", async () => {
    await bus.request(resourceStore.putUpstreamItems, filesItems());
    const answer = await bus.request(resourceStore.putUpstreamItems, {
      tenant: TENANT,
      sourceId: OTHER_ID,
      source: 'other',
      servers: [],
      prompts: [
        { prompt: { name: 'own-prompt', description: 'Takes a name' }, upstreamName: 'own-prompt' },
        { prompt: { name: 'files__greet', description: 'Takes a name' }, upstreamName: 'greet' },
        { prompt: { name: 'other__hello' }, upstreamName: 'hello' },
      ],
      resources: [{ resource: { uri: 'file:///own.txt', name: 'own' } }, { resource: { uri: 'file:///readme.md', name: 'readme' } }],
      resourceTemplates: [],
    });
    expect(answer).toEqual({
      changed: true,
      refused: [
        { kind: 'prompt', name: 'own-prompt', reason: "the tenant's own prompt own-prompt holds this name" },
        { kind: 'prompt', name: 'files__greet', reason: 'upstream source files serves a prompt of this name' },
        { kind: 'resource', name: 'file:///own.txt', reason: "the tenant's own resource file:///own.txt holds this URI" },
        { kind: 'resource', name: 'file:///readme.md', reason: 'upstream source files serves a resource of this URI' },
      ],
    });
    const prompts = await bus.request(resourceStore.listPrompts, elsewhere, asAlice);
    expect(prompts.prompts).toEqual([
      { name: 'other__hello', arguments: [] },
      expect.objectContaining({ name: 'own-prompt', description: 'The tenant’s own' }),
    ]);
    await bus.request(resourceStore.getPrompt, { ...docs, name: 'files__greet', arguments: { who: 'B' } }, asAlice);
    expect(heard.prompts.map((prompt) => prompt.request.sourceId)).toEqual([FILES_ID]);
    await bus.request(resourceStore.putUpstreamItems, {
      tenant: TENANT,
      sourceId: OTHER_ID,
      source: 'other',
      servers: [],
      prompts: [],
      resources: [],
      resourceTemplates: [],
    });
  });

  it('removes what a later put leaves out, and announces the lists it changed', async () => {
    await bus.request(resourceStore.putUpstreamItems, filesItems());
    const events = await listChangesDuring(async () => {
      await expect(
        bus.request(resourceStore.putUpstreamItems, filesItems({ servers: ['docs', 'more'], resources: [], resourceTemplates: [] })),
      ).resolves.toEqual({
        changed: true,
        refused: [],
      });
    });
    expect(events).toEqual([
      { servers: ['docs', 'more'], lists: ['prompts'] },
      { servers: ['docs'], lists: ['resources'] },
    ]);
    expect((await bus.request(resourceStore.listResources, docs, asAlice)).resources.map((resource) => resource.uri)).toEqual(['file:///own.txt']);
    expect((await bus.request(resourceStore.listResourceTemplates, docs, asAlice)).resourceTemplates).toEqual([]);
    expect((await errorOf(bus.request(resourceStore.readResource, { ...docs, uri: 'file:///pages/intro' }, asAlice))).code).toBe('NOT_FOUND');
    const more = { tenant: TENANT, server: 'more', public: false };
    expect((await bus.request(resourceStore.listPrompts, more, asAlice)).prompts.map((prompt) => prompt.name)).toEqual([
      'files__broken',
      'files__greet',
      'own-prompt',
    ]);
    expect(heard.reads).toEqual([]);
  });

  it("refuses the administrators' writes of upstream items, naming the source, and leaves them out of the admin lists", async () => {
    await bus.request(resourceStore.putUpstreamItems, filesItems());
    const refusals = [
      () => bus.request(resourceStore.putResourceDefinition, { tenant: TENANT, resource: { uri: 'file:///readme.md', name: 'readme', text: 'mine now' } }),
      () => bus.request(resourceStore.deleteResourceDefinition, { tenant: TENANT, uri: 'file:///readme.md' }),
      () => bus.request(resourceStore.beginResourceUpload, { tenant: TENANT, uri: 'file:///readme.md', mimeType: 'text/plain', name: 'readme' }),
      () =>
        bus.request(resourceStore.putResourceTemplateDefinition, {
          tenant: TENANT,
          resourceTemplate: { name: 'files__page', uriTemplate: 'x://{y}', text: 'mine' },
        }),
      () => bus.request(resourceStore.deleteResourceTemplateDefinition, { tenant: TENANT, name: 'files__page' }),
      () =>
        bus.request(resourceStore.putPromptDefinition, {
          tenant: TENANT,
          prompt: { name: 'files__greet', description: 'mine', messages: [{ role: 'user', content: { type: 'text', text: 'mine' } }] },
        }),
      () => bus.request(resourceStore.deletePromptDefinition, { tenant: TENANT, name: 'files__greet' }),
    ];
    for (const refusal of refusals) {
      const error = await errorOf(refusal());
      expect({ code: error.code, dataCode: (error.data as { code?: string }).code, message: error.message }).toEqual({
        code: 'INVALID_PARAMS',
        dataCode: 'UPSTREAM_ITEM',
        message: expect.stringContaining('upstream source files'),
      });
    }
    await expect(bus.request(resourceStore.readResource, { ...docs, uri: 'file:///readme.md' }, asAlice)).resolves.toMatchObject({
      contents: [{ text: 'upstream content of file:///readme.md' }],
    });
    expect((await bus.request(resourceStore.listResourceDefinitions, { tenant: TENANT })).resources.map((resource) => resource.uri)).toEqual([
      'file:///own.txt',
    ]);
    expect((await bus.request(resourceStore.listResourceTemplateDefinitions, { tenant: TENANT })).resourceTemplates).toEqual([]);
    expect((await bus.request(resourceStore.listPromptDefinitions, { tenant: TENANT })).prompts.map((prompt) => prompt.name)).toEqual(['own-prompt']);
    expect((await errorOf(bus.request(resourceStore.getPromptDefinition, { tenant: TENANT, name: 'files__greet' }))).code).toBe('NOT_FOUND');
  });
});
