import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInputRequired, type Principal, resourceStore, type RpcRequest } from '@mcp-platform/protocol-contracts';
import { MessageBus, type MessagingOptions } from '@mcp-platform/shared-messaging';
import type { DatabaseOptions } from '@mcp-platform/shared-persistence';
import { errorOf } from '@mcp-platform/shared-testing';
import { ResourceReadCache } from '../src/resources/resource-read.cache';
import { ResourcesService } from '../src/resources/resources.service';
import { TINY_PNG_BASE64 } from '../src/seed/seed.fixtures';
import { SeedService } from '../src/seed/seed.service';
import { bootResourceStore, setups, TEST_QUOTA_BYTES } from './resource-store.setups';

const run = `rs${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

const anonymous = (tenant: string): Principal => ({ subject: 'anonymous', tenant, scopes: [], anonymous: true });
const as = (principal: Principal) => ({ context: { principal } });
const everything = { tenant: 'conformance', server: 'everything', public: true };
const asConformance = as(anonymous('conformance'));

describe.each(setups(run))('ResourceStoreModule over $name', (setup) => {
  let app: INestApplication;
  let bus: MessageBus;

  /** A rendered prompt: fails the test when the store asked for input instead. */
  async function renderedPrompt(request: RpcRequest<typeof resourceStore.getPrompt>, options: { context: { principal: Principal } }) {
    const answer = await bus.request(resourceStore.getPrompt, request, options);
    if (isInputRequired(answer)) throw new Error(`expected a rendered prompt, got input requests ${JSON.stringify(answer)}`);
    return answer;
  }
  let drop: (() => Promise<void>) | undefined;
  let messaging: MessagingOptions;
  let databaseOptions: DatabaseOptions;

  beforeAll(async () => {
    const database = await setup.database();
    drop = database.drop;
    messaging = setup.messaging();
    databaseOptions = database.options;
    app = await bootResourceStore(messaging, databaseOptions, true);
    bus = app.get(MessageBus);
  });

  afterAll(async () => {
    try {
      await app?.close();
    } finally {
      await drop?.();
    }
  });

  describe('seed', () => {
    it('writes nothing and announces nothing when seeding again', async () => {
      const events: unknown[] = [];
      const subscription = bus.subscribe(resourceStore.listChanged, (payload) => {
        if (payload.tenant === 'conformance' || payload.tenant === 'demo') events.push(payload);
      });
      await bus.flush();
      try {
        await app.get(SeedService).seed();
        // A marker published after the seed: once it arrives, anything the seed announced would have too.
        const marker = { tenant: 'demo', servers: ['marker'], lists: ['prompts' as const] };
        bus.emit(resourceStore.listChanged, marker);
        await expect.poll(() => events.length).toBeGreaterThan(0);
        expect(events).toEqual([marker]);
      } finally {
        subscription.unsubscribe();
      }
    });
  });

  describe('resources', () => {
    it('lists the conformance resources and skill files in URI order, without content, with public caching hints', async () => {
      const page = await bus.request(resourceStore.listResources, everything, asConformance);
      expect(page.resources.map((resource) => resource.uri)).toEqual([
        'skill://pdf-processing/SKILL.md',
        'skill://pdf-processing/references/FORMS.md',
        'skill://pdf-processing/scripts/extract.py',
        'skill://release-notes/SKILL.md',
        'test://static-binary',
        'test://static-text',
        'test://watched-resource',
      ]);
      // A skill's SKILL.md is named and described from its frontmatter (SEP-2640).
      expect(page.resources[0]).toMatchObject({ name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents', mimeType: 'text/markdown' });
      expect(page.resources[5]).toMatchObject({ name: 'static-text', mimeType: 'text/plain', size: 'This is the content of the static text resource.'.length });
      expect(page.nextCursor).toBeUndefined();
      expect(page).toMatchObject({ cacheScope: 'public', ttlMs: expect.any(Number) as number });
    });

    it('answers private caching hints for a server that is not public', async () => {
      const page = await bus.request(resourceStore.listResources, { tenant: 'demo', server: 'default', public: false }, as(anonymous('demo')));
      expect(page.cacheScope).toBe('private');
      expect(page.resources.map((resource) => resource.uri)).toContain('demo://guide');
    });

    it('reads the static text resource', async () => {
      const result = await bus.request(resourceStore.readResource, { ...everything, uri: 'test://static-text' }, asConformance);
      expect(result.contents).toEqual([{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }]);
    });

    it('reads the static binary resource as base64', async () => {
      const result = await bus.request(resourceStore.readResource, { ...everything, uri: 'test://static-binary' }, asConformance);
      expect(result.contents).toEqual([{ uri: 'test://static-binary', mimeType: 'image/png', blob: TINY_PNG_BASE64 }]);
    });

    it('lists the template and reads a URI it matches', async () => {
      const templates = await bus.request(resourceStore.listResourceTemplates, everything, asConformance);
      expect(templates.resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'test://template/{id}/data', mimeType: 'application/json' })]);
      const result = await bus.request(resourceStore.readResource, { ...everything, uri: 'test://template/123/data' }, asConformance);
      expect(result.contents).toEqual([
        { uri: 'test://template/123/data', mimeType: 'application/json', text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}' },
      ]);
    });

    it('answers NOT_FOUND with the URI for an unknown URI and for a URI no template matches', async () => {
      for (const uri of ['test://nothing-here', 'test://template/1/2/data']) {
        const error = await errorOf(bus.request(resourceStore.readResource, { ...everything, uri }, asConformance));
        expect(error).toMatchObject({ code: 'NOT_FOUND', data: { uri } });
      }
    });

    it('does not serve another server’s resources', async () => {
      const error = await errorOf(
        bus.request(resourceStore.readResource, { tenant: 'conformance', server: 'other', public: true, uri: 'test://static-text' }, asConformance),
      );
      expect(error.code).toBe('NOT_FOUND');
    });

    it('refuses a garbage cursor with INVALID_PARAMS', async () => {
      const error = await errorOf(bus.request(resourceStore.listResources, { ...everything, cursor: '%%%garbage' }, asConformance));
      expect(error.code).toBe('INVALID_PARAMS');
    });

    it('refuses a principal of another tenant with FORBIDDEN', async () => {
      const error = await errorOf(bus.request(resourceStore.listResources, everything, as(anonymous('demo'))));
      expect(error.code).toBe('FORBIDDEN');
    });

    it('pages through more than 100 resources, each once, in order', async () => {
      const service = app.get(ResourcesService);
      for (let index = 0; index < 205; index++) {
        await service.putResource('paging', { uri: `page://item/${String(index).padStart(3, '0')}`, name: `item-${index}`, text: `item ${index}` });
      }
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await bus.request(
          resourceStore.listResources,
          { tenant: 'paging', server: 'any', public: false, ...(cursor ? { cursor } : {}) },
          as(anonymous('paging')),
        );
        seen.push(...page.resources.map((resource) => resource.uri));
        cursor = page.nextCursor;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toHaveLength(205);
      expect(seen).toEqual([...seen].sort());
    });

    it('refuses content over the tenant quota and keeps serving', async () => {
      const service = app.get(ResourcesService);
      await expect(service.putResource('quota', { uri: 'big://one', name: 'one', blob: Buffer.alloc(TEST_QUOTA_BYTES / 2).toString('base64') })).resolves.toBe(
        'created',
      );
      const error = await errorOf(
        service.putResource('quota', { uri: 'big://two', name: 'two', blob: Buffer.alloc(TEST_QUOTA_BYTES / 2 + 1).toString('base64') }),
      );
      expect(error).toMatchObject({ code: 'INVALID_PARAMS', data: { quotaBytes: TEST_QUOTA_BYTES, requestedBytes: TEST_QUOTA_BYTES / 2 + 1 } });
      // Replacing a resource counts its new size instead of the old one.
      await expect(service.putResource('quota', { uri: 'big://one', name: 'one', blob: Buffer.alloc(TEST_QUOTA_BYTES).toString('base64') })).resolves.toBe(
        'updated',
      );
      const page = await bus.request(resourceStore.listResources, { tenant: 'quota', server: 'x', public: false }, as(anonymous('quota')));
      expect(page.resources).toEqual([expect.objectContaining({ uri: 'big://one', size: TEST_QUOTA_BYTES })]);
    });

    it('lets only one of two concurrent writes that together exceed the quota through', async () => {
      const service = app.get(ResourcesService);
      const half = Buffer.alloc(TEST_QUOTA_BYTES / 2 + 1).toString('base64');
      const results = await Promise.allSettled([
        service.putResource('race', { uri: 'race://a', name: 'a', blob: half }),
        service.putResource('race', { uri: 'race://b', name: 'b', blob: half }),
      ]);
      expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    });

    it('announces a changed resource, and the list change only when its list entry changed; nothing for an identical write', async () => {
      const service = app.get(ResourcesService);
      const updated: string[] = [];
      const changed: unknown[] = [];
      const subscriptions = [
        bus.subscribe(resourceStore.resourceUpdated, (payload) => {
          if (payload.tenant === 'events') updated.push(payload.uri);
        }),
        bus.subscribe(resourceStore.listChanged, (payload) => {
          if (payload.tenant === 'events') changed.push(payload);
        }),
      ];
      await bus.flush();
      try {
        const resource = { uri: 'ev://watched', name: 'watched', text: 'v1', servers: ['s1'] };
        await expect(service.putResource('events', resource)).resolves.toBe('created');
        await expect(service.putResource('events', resource)).resolves.toBe('unchanged');
        // Same size, same metadata: only subscribers of the URI hear of it.
        await expect(service.putResource('events', { ...resource, text: 'v2' })).resolves.toBe('updated');
        await expect(service.putResource('events', { ...resource, text: 'v3', title: 'Watched' })).resolves.toBe('updated');
        // A last write elsewhere: once its announcement is here, every earlier one is too (one publisher, in order).
        await expect(service.putResource('events', { uri: 'ev://sentinel', name: 'sentinel', text: 's', servers: ['s2'] })).resolves.toBe('created');
        await expect.poll(() => changed.length).toBe(3);
        expect(updated).toEqual(['ev://watched', 'ev://watched']);
        expect(changed).toEqual([
          { tenant: 'events', servers: ['s1'], lists: ['resources'] },
          { tenant: 'events', servers: ['s1'], lists: ['resources'] },
          { tenant: 'events', servers: ['s2'], lists: ['resources'] },
        ]);
      } finally {
        for (const subscription of subscriptions) subscription.unsubscribe();
      }
    });
  });

  describe('read cache', () => {
    const cached = { tenant: 'cached', server: 'any', public: false };
    const asCached = as(anonymous('cached'));
    const textOf = async (uri: string) => {
      const result = await bus.request(resourceStore.readResource, { ...cached, uri }, asCached);
      return result.contents.map((content) => ('text' in content ? content.text : undefined));
    };

    it('serves what a write through the store wrote at once: new content, a new resource, a new template, a deletion', async () => {
      const service = app.get(ResourcesService);
      await service.putResource('cached', { uri: 'cached://doc', name: 'doc', text: 'v1' });
      await expect(textOf('cached://doc')).resolves.toEqual(['v1']);
      await expect(textOf('cached://doc')).resolves.toEqual(['v1']);
      await service.putResource('cached', { uri: 'cached://doc', name: 'doc', text: 'v2' });
      await expect(textOf('cached://doc')).resolves.toEqual(['v2']);

      await expect(errorOf(textOf('cached://new'))).resolves.toMatchObject({ code: 'NOT_FOUND' });
      await service.putResource('cached', { uri: 'cached://new', name: 'new', text: 'fresh' });
      await expect(textOf('cached://new')).resolves.toEqual(['fresh']);

      await expect(errorOf(textOf('cached://item/7'))).resolves.toMatchObject({ code: 'NOT_FOUND' });
      await service.putResourceTemplate('cached', { name: 'item', uriTemplate: 'cached://item/{id}', text: 'item {id}' });
      await expect(textOf('cached://item/7')).resolves.toEqual(['item 7']);

      await service.deleteResource('cached', 'cached://doc');
      await expect(errorOf(textOf('cached://doc'))).resolves.toMatchObject({ code: 'NOT_FOUND' });
    });

    describe('with a second replica', () => {
      let replica: INestApplication;

      beforeAll(async () => {
        // Same bus and database: the second store answers in the same queue group and hears the same events.
        replica = await bootResourceStore(messaging, databaseOptions, false);
      });

      afterAll(async () => {
        await replica?.close();
      });

      it('drops what it cached when the other replica writes (its change event)', async () => {
        const writer = app.get(ResourcesService);
        const reader = replica.get(ResourcesService);
        const readerCache = replica.get(ResourceReadCache);
        const read = async () => (await reader.read(cached, 'cached://shared', anonymous('cached'))).contents;
        const before = readerCache.begin('cached').generation;
        await writer.putResource('cached', { uri: 'cached://shared', name: 'shared', text: 'v1' });
        // The creation's event reaches the reader too: a read racing it would rightly keep nothing.
        await expect.poll(() => readerCache.begin('cached').generation).toBeGreaterThan(before);
        await expect(read()).resolves.toEqual([{ uri: 'cached://shared', text: 'v1' }]);
        expect(readerCache.getRead('cached', 'any', 'cached://shared')).toEqual({ kind: 'content', content: { uri: 'cached://shared', text: 'v1' } });
        await writer.putResource('cached', { uri: 'cached://shared', name: 'shared', text: 'v2' });
        // Well under READ_CACHE_TTL_MS: the event, not the expiry, is what makes the new content visible.
        await expect.poll(read, { timeout: 2_000 }).toEqual([{ uri: 'cached://shared', text: 'v2' }]);
      });
    });
  });

  describe('prompts', () => {
    it('lists the conformance prompts, each with a description', async () => {
      const page = await bus.request(resourceStore.listPrompts, everything, asConformance);
      expect(page.prompts.map((prompt) => prompt.name)).toEqual([
        'test_input_required_result_prompt',
        'test_prompt_with_arguments',
        'test_prompt_with_embedded_resource',
        'test_prompt_with_image',
        'test_simple_prompt',
      ]);
      for (const prompt of page.prompts) expect(prompt.description).toEqual(expect.any(String));
      expect(page.prompts.find((prompt) => prompt.name === 'test_prompt_with_arguments')?.arguments).toEqual([
        { name: 'arg1', description: 'First test argument', required: true },
        { name: 'arg2', description: 'Second test argument', required: true },
      ]);
    });

    it('gets the simple prompt', async () => {
      const result = await renderedPrompt({ ...everything, name: 'test_simple_prompt' }, asConformance);
      expect(result.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }]);
    });

    it('gets the prompt with arguments filled in', async () => {
      const result = await renderedPrompt(
        { ...everything, name: 'test_prompt_with_arguments', arguments: { arg1: 'testValue1', arg2: 'testValue2' } },
        asConformance,
      );
      expect(result.messages).toEqual([{ role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='testValue1', arg2='testValue2'" } }]);
    });

    it('gets the prompt with an embedded resource', async () => {
      const result = await renderedPrompt(
        { ...everything, name: 'test_prompt_with_embedded_resource', arguments: { resourceUri: 'test://example-resource' } },
        asConformance,
      );
      expect(result.messages).toEqual([
        {
          role: 'user',
          content: { type: 'resource', resource: { uri: 'test://example-resource', mimeType: 'text/plain', text: 'Embedded resource content for testing.' } },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ]);
    });

    it('gets the prompt with an image', async () => {
      const result = await renderedPrompt({ ...everything, name: 'test_prompt_with_image' }, asConformance);
      expect(result.messages).toEqual([
        { role: 'user', content: { type: 'image', data: TINY_PNG_BASE64, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
      ]);
    });

    it("asks a stateless request for a prompt's inputs, then renders the answer into it", async () => {
      const prompt = { ...everything, name: 'test_input_required_result_prompt', asksByResult: true, clientCapabilities: { elicitation: {} } };
      const asked = await bus.request(resourceStore.getPrompt, prompt, asConformance);
      expect(asked).toEqual({
        inputRequired: {
          inputRequests: {
            user_context: {
              method: 'elicitation/create',
              params: {
                message: 'What context should the prompt use?',
                requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
              },
            },
          },
        },
      });
      const answered = await renderedPrompt(
        { ...prompt, inputResponses: { user_context: { action: 'accept', content: { context: 'tests', extra: 'ignored' } } } },
        asConformance,
      );
      expect(answered.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Answer with this context in mind: tests' } }]);
      const declined = await renderedPrompt({ ...prompt, inputResponses: { user_context: { action: 'decline' } } }, asConformance);
      expect(declined.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Answer with this context in mind: ' } }]);
    });

    it("renders a prompt's inputs unanswered for a session, and refuses a client without elicitation or a malformed answer", async () => {
      const name = 'test_input_required_result_prompt';
      const session = await renderedPrompt({ ...everything, name }, asConformance);
      expect(session.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Answer with this context in mind: ' } }]);
      const undeclared = await errorOf(
        bus.request(resourceStore.getPrompt, { ...everything, name, asksByResult: true, clientCapabilities: {} }, asConformance),
      );
      expect(undeclared).toMatchObject({ code: 'MISSING_CLIENT_CAPABILITY', data: { requiredCapabilities: { elicitation: {} } } });
      const malformed = await errorOf(
        bus.request(resourceStore.getPrompt, { ...everything, name, asksByResult: true, inputResponses: { user_context: 12345 } }, asConformance),
      );
      expect(malformed).toMatchObject({ code: 'INVALID_PARAMS', message: expect.stringContaining('inputResponses.user_context') });
    });

    it('refuses a missing required argument and an unknown prompt with INVALID_PARAMS', async () => {
      const missing = await errorOf(
        bus.request(resourceStore.getPrompt, { ...everything, name: 'test_prompt_with_arguments', arguments: { arg1: 'x' } }, asConformance),
      );
      expect(missing).toMatchObject({ code: 'INVALID_PARAMS', data: { missing: ['arg2'] } });
      const unknown = await errorOf(bus.request(resourceStore.getPrompt, { ...everything, name: 'no_such_prompt' }, asConformance));
      expect(unknown.code).toBe('INVALID_PARAMS');
    });
  });

  describe('completion', () => {
    it('completes a prompt argument (the conformance request)', async () => {
      const result = await bus.request(
        resourceStore.complete,
        { ...everything, ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'test' } },
        asConformance,
      );
      expect(result.completion).toEqual({ values: ['test', 'testValue1'], total: 2, hasMore: false });
    });

    it('completes a template variable', async () => {
      const result = await bus.request(
        resourceStore.complete,
        { ...everything, ref: { type: 'ref/resource', uri: 'test://template/{id}/data' }, argument: { name: 'id', value: '1' } },
        asConformance,
      );
      expect(result.completion.values).toEqual(['1', '123']);
    });

    it('narrows by the earlier arguments in the context', async () => {
      const result = await bus.request(
        resourceStore.complete,
        {
          tenant: 'demo',
          server: 'default',
          public: false,
          ref: { type: 'ref/prompt', name: 'explain_error' },
          argument: { name: 'framework', value: 'f' },
          context: { arguments: { language: 'python' } },
        },
        as(anonymous('demo')),
      );
      expect(result.completion.values).toEqual(['fastapi', 'flask']);
    });

    it('completes a template variable from the URIs the server’s stored resources hold, and nothing of another server or tenant', async () => {
      const service = app.get(ResourcesService);
      for (const uri of ['docs://guides/intro', 'docs://guides/install', 'docs://api/auth']) {
        await service.putResource('completing', { uri, name: uri, text: 'x', servers: ['docs'] });
      }
      // spec S-230: the same URIs' shapes on another server of the tenant, and in another tenant, never leak.
      await service.putResource('completing', { uri: 'docs://gossip/hidden', name: 'hidden', text: 'x', servers: ['elsewhere'] });
      await service.putResource('completing', { uri: 'docs://guides/hidden', name: 'hidden-guide', text: 'x', servers: ['elsewhere'] });
      await service.putResource('completing-other', { uri: 'docs://glossary/leak', name: 'leak', text: 'x' });
      await service.putResource('completing-other', { uri: 'docs://guides/leak', name: 'leak-guide', text: 'x' });
      for (const tenant of ['completing', 'completing-other']) {
        await service.putResourceTemplate(tenant, { name: 'docs', uriTemplate: 'docs://{section}/{page}', text: '{section}/{page}' });
      }
      const docs = { tenant: 'completing', server: 'docs', public: false };
      const ref = { type: 'ref/resource' as const, uri: 'docs://{section}/{page}' };
      const asCompleting = as(anonymous('completing'));

      const sections = await bus.request(resourceStore.complete, { ...docs, ref, argument: { name: 'section', value: 'g' } }, asCompleting);
      expect(sections.completion).toEqual({ values: ['guides'], total: 1, hasMore: false });
      const allSections = await bus.request(resourceStore.complete, { ...docs, ref, argument: { name: 'section', value: '' } }, asCompleting);
      expect(allSections.completion.values).toEqual(['api', 'guides']);
      const pages = await bus.request(
        resourceStore.complete,
        { ...docs, ref, argument: { name: 'page', value: '' }, context: { arguments: { section: 'guides' } } },
        asCompleting,
      );
      expect(pages.completion).toEqual({ values: ['install', 'intro'], total: 2, hasMore: false });
    });

    it('narrows by a template prefix holding LIKE pattern characters literally', async () => {
      const service = app.get(ResourcesService);
      await service.putResource('completing-like', { uri: 'like://50%25_off/one', name: 'one', text: 'x' });
      await service.putResource('completing-like', { uri: 'like://50%25Xoff/two', name: 'two', text: 'x' });
      await service.putResourceTemplate('completing-like', { name: 'odd', uriTemplate: 'like://50%25_off/{id}', text: '{id}' });
      const result = await bus.request(
        resourceStore.complete,
        {
          tenant: 'completing-like',
          server: 'any',
          public: false,
          ref: { type: 'ref/resource', uri: 'like://50%25_off/{id}' },
          argument: { name: 'id', value: '' },
        },
        as(anonymous('completing-like')),
      );
      expect(result.completion.values).toEqual(['one']);
    });

    it('refuses an unknown prompt or template with INVALID_PARAMS', async () => {
      for (const ref of [
        { type: 'ref/prompt' as const, name: 'nope' },
        { type: 'ref/resource' as const, uri: 'test://nope/{x}' },
      ]) {
        const error = await errorOf(bus.request(resourceStore.complete, { ...everything, ref, argument: { name: 'x', value: '' } }, asConformance));
        expect(error.code).toBe('INVALID_PARAMS');
      }
    });
  });
});
