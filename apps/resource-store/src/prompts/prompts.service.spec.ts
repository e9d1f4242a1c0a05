import { describe, expect, it } from 'vitest';
import type { Principal } from '@mcp-platform/protocol-contracts';
import type { MessageBus } from '@mcp-platform/shared-messaging';
import type { UpstreamOrigin } from '../store/store.types';
import type { UpstreamCalls } from '../upstream-items/upstream-calls';
import type { PromptsRepository, ServedPrompt } from './prompts.repository';
import { PromptsService } from './prompts.service';

const principal: Principal = { subject: 'alice', tenant: 't', scopes: [], anonymous: false };
const address = { tenant: 't', server: 's', public: false };
const origin: UpstreamOrigin = { sourceId: '6f1c1f5e-8d1a-4a53-9a55-1a0b5a1a2b3c', source: 'docs', name: 'greet' };

function setup(prompt: ServedPrompt) {
  const gets: Array<{ origin: UpstreamOrigin; args: unknown }> = [];
  const upstreams = {
    getPrompt: (_tenant: string, from: UpstreamOrigin, args: unknown) => {
      gets.push({ origin: from, args });
      return Promise.resolve({ messages: [] });
    },
  } as unknown as UpstreamCalls;
  const repository = { findPrompt: () => Promise.resolve(prompt), upstreamOrigin: () => Promise.resolve(prompt.upstream) } as unknown as PromptsRepository;
  return { service: new PromptsService(repository, {} as MessageBus, upstreams), gets };
}

const upstreamPrompt: ServedPrompt = {
  name: 'docs__greet',
  description: '',
  arguments: [{ name: 'who', required: true }],
  inputs: [],
  messages: [],
  servers: [],
  upstream: origin,
};

describe('PromptsService with upstream prompts', () => {
  it('renders an upstream prompt through the executor by its name upstream, never asking for inputs', async () => {
    const { service, gets } = setup(upstreamPrompt);
    await expect(service.getPrompt(address, { name: 'docs__greet', arguments: { who: 'Ada' }, asksByResult: true }, principal)).resolves.toEqual({
      messages: [],
    });
    expect(gets).toEqual([{ origin, args: { who: 'Ada' } }]);
  });

  it('checks the listed required arguments first', async () => {
    const { service, gets } = setup(upstreamPrompt);
    await expect(service.getPrompt(address, { name: 'docs__greet' }, principal)).rejects.toMatchObject({ code: 'INVALID_PARAMS', data: { missing: ['who'] } });
    expect(gets).toEqual([]);
  });

  it('refuses to put or delete a prompt an upstream source holds', async () => {
    const { service } = setup(upstreamPrompt);
    const prompt = { name: 'docs__greet', description: 'mine', messages: [{ role: 'user', content: { type: 'text', text: 'x' } }] };
    await expect(service.putPrompt('t', prompt)).rejects.toMatchObject({ code: 'INVALID_PARAMS', data: { code: 'UPSTREAM_ITEM', source: 'docs' } });
    await expect(service.deletePrompt('t', 'docs__greet')).rejects.toMatchObject({ data: { code: 'UPSTREAM_ITEM' } });
  });
});
