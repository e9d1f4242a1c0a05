import { describe, expect, it } from 'vitest';
import type { Principal } from '@mcp-platform/protocol-contracts';
import type { PromptsRepository } from '../prompts/prompts.repository';
import type { ServedPrompt } from '../prompts/prompts.repository';
import type { ResourceTemplatesRepository } from '../resources/resource-templates.repository';
import type { ServedTemplate } from '../resources/resource-templates.repository';
import type { ResourcesRepository } from '../resources/resources.repository';
import type { UpstreamOrigin } from '../store/store.types';
import type { UpstreamCalls } from '../upstream-items/upstream-calls';
import { CompletionService } from './completion.service';
import { MAX_SCANNED_URIS, type StoredUriNarrowing } from './stored-values';

const principal: Principal = { subject: 'anonymous', tenant: 't', scopes: [], anonymous: true };
const address = { tenant: 't', server: 's', public: false };
const ref = { type: 'ref/resource' as const, uri: 'docs://{section}/{page}' };

/** The repository calls completion makes: one template, and the URIs of the server's resources (no prompts). */
class FakeRepository {
  prompt: ServedPrompt | undefined;
  findPrompt(): Promise<ServedPrompt | undefined> {
    return Promise.resolve(this.prompt);
  }

  template: ServedTemplate = { name: 'docs', uriTemplate: ref.uri, text: '{page}', completions: { section: ['reference', 'guides'] }, servers: [] };
  uris: string[] = [];
  readonly queries: Array<{ prefixes: StoredUriNarrowing; limit: number }> = [];

  serverTemplates(): Promise<ServedTemplate[]> {
    return Promise.resolve([this.template]);
  }

  serverResourceUris(_tenant: string, _server: string, prefixes: StoredUriNarrowing, limit: number): Promise<string[]> {
    this.queries.push({ prefixes, limit });
    return Promise.resolve(this.uris.filter((uri) => uri.startsWith(prefixes.startsWith)).slice(0, limit));
  }
}

/** The executor calls completion makes for upstream items, recorded. */
class FakeUpstreams {
  readonly completions: Array<{ origin: UpstreamOrigin; ref: unknown; argument: unknown; context: unknown; principal: Principal }> = [];
  complete(_tenant: string, origin: UpstreamOrigin, ref: unknown, argument: unknown, context: unknown, caller: Principal) {
    this.completions.push({ origin, ref, argument, context, principal: caller });
    return Promise.resolve({ completion: { values: ['from-upstream'], hasMore: false } });
  }
}

function setup() {
  const repository = new FakeRepository();
  const upstreams = new FakeUpstreams();
  return {
    repository,
    service: new CompletionService(
      repository as unknown as PromptsRepository,
      repository as unknown as ResourceTemplatesRepository,
      repository as unknown as ResourcesRepository,
      upstreams as unknown as UpstreamCalls,
    ),
    upstreams,
  };
}

describe('CompletionService', () => {
  describe('complete', () => {
    it('offers the configured values first, then the values of the stored URIs the template matches, each once', async () => {
      const { repository, service } = setup();
      repository.uris = ['docs://api/auth', 'docs://guides/install', 'docs://guides/intro'];
      const result = await service.complete(address, ref, { name: 'section', value: '' }, undefined, principal);
      expect(result.completion).toEqual({ values: ['reference', 'guides', 'api'], total: 3, hasMore: false });
    });

    it('reads a bounded number of URIs narrowed by the prefix the template and the context fix', async () => {
      const { repository, service } = setup();
      await service.complete(address, ref, { name: 'page', value: 'in' }, { section: 'guides' }, principal);
      expect(repository.queries).toEqual([
        { prefixes: { startsWith: 'docs://guides/', startsWithIgnoringCase: 'docs://guides/in' }, limit: MAX_SCANNED_URIS + 1 },
      ]);
    });

    it('says there may be more, without a total, when the scan reached its cap', async () => {
      const { repository, service } = setup();
      repository.uris = Array.from({ length: MAX_SCANNED_URIS + 5 }, (_, index) => `docs://guides/page-${String(index).padStart(4, '0')}`);
      const result = await service.complete(address, ref, { name: 'page', value: 'page-000' }, undefined, principal);
      expect(result.completion).toEqual({ values: Array.from({ length: 10 }, (_, index) => `page-000${index}`), hasMore: true });
    });

    it('refuses a principal of another tenant before reading anything', async () => {
      const { repository, service } = setup();
      await expect(service.complete(address, ref, { name: 'section', value: '' }, undefined, { ...principal, tenant: 'other' })).rejects.toMatchObject({
        code: 'FORBIDDEN',
      });
      expect(repository.queries).toEqual([]);
    });
  });
  describe('upstream items', () => {
    const origin: UpstreamOrigin = { sourceId: '6f1c1f5e-8d1a-4a53-9a55-1a0b5a1a2b3c', source: 'docs', name: 'summarize' };

    it('completes an upstream prompt through the executor by its name upstream, with the context', async () => {
      const { service, repository, upstreams } = setup();
      repository.prompt = { name: 'docs__summarize', description: '', arguments: [{ name: 'style' }], inputs: [], messages: [], servers: [], upstream: origin };
      const answer = await service.complete(address, { type: 'ref/prompt', name: 'docs__summarize' }, { name: 'style', value: 'b' }, { lang: 'en' }, principal);
      expect(answer).toEqual({ completion: { values: ['from-upstream'], hasMore: false } });
      expect(upstreams.completions).toEqual([
        { origin, ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'style', value: 'b' }, context: { lang: 'en' }, principal },
      ]);
    });

    it('completes an upstream template through the executor by its URI template, without reading stored URIs', async () => {
      const { service, repository, upstreams } = setup();
      repository.template = { ...repository.template, upstream: { ...origin, name: 'pages' } };
      await service.complete(address, ref, { name: 'section', value: 'r' }, undefined, principal);
      expect(upstreams.completions).toMatchObject([{ ref: { type: 'ref/resource', uri: ref.uri }, context: undefined }]);
      expect(repository.queries).toEqual([]);
    });

    it("completes the store's own template itself", async () => {
      const { service, upstreams } = setup();
      await service.complete(address, ref, { name: 'section', value: 'r' }, undefined, principal);
      expect(upstreams.completions).toEqual([]);
    });
  });
});
