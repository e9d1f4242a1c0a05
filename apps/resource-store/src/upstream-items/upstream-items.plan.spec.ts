import { describe, expect, it } from 'vitest';
import type { UpstreamOrigin } from '../store/store.types';
import { type KeyHolders, planUpstreamItems, type UpstreamItemsRequest, type UpstreamRows } from './upstream-items.plan';

const sourceId = '6f1c1f5e-8d1a-4a53-9a55-1a0b5a1a2b3c';
const other: UpstreamOrigin = { sourceId: '0d7e5d8c-3f51-4d69-9a3b-58f0f7c1e2a4', source: 'other', name: 'x' };
const none: UpstreamRows = { prompts: [], resources: [], resourceTemplates: [], skills: [] };
const nobody: KeyHolders = { prompts: new Map(), resources: new Map(), resourceTemplates: new Map(), skills: new Map() };

function request(overrides: Partial<UpstreamItemsRequest> = {}): UpstreamItemsRequest {
  return {
    tenant: 't',
    sourceId,
    source: 'files',
    servers: ['b', 'a'],
    prompts: [{ prompt: { name: 'files__greet', description: 'Greets', arguments: [{ name: 'who', required: true }] }, upstreamName: 'greet' }],
    resources: [{ resource: { uri: 'file:///readme', name: 'readme', mimeType: 'text/plain' } }],
    resourceTemplates: [{ resourceTemplate: { name: 'files__page', uriTemplate: 'file:///pages/{page}' }, upstreamName: 'page' }],
    skills: [],
    ...overrides,
  };
}

describe('planUpstreamItems', () => {
  it('serves every item on the request servers, marked with the source and the name upstream, and says every kind changed', () => {
    const plan = planUpstreamItems(request(), none, nobody);
    expect(plan.refused).toEqual([]);
    expect(plan.rows.prompts).toEqual([
      {
        name: 'files__greet',
        title: null,
        description: 'Greets',
        icons: null,
        arguments: [{ name: 'who', required: true }],
        servers: ['a', 'b'],
        upstream: { sourceId, source: 'files', name: 'greet' },
      },
    ]);
    expect(plan.rows.resources[0]).toMatchObject({
      uri: 'file:///readme',
      mimeType: 'text/plain',
      upstream: { sourceId, source: 'files', name: 'file:///readme' },
    });
    expect(plan.rows.resourceTemplates[0]).toMatchObject({ name: 'files__page', uriTemplate: 'file:///pages/{page}', upstream: { name: 'page' } });
    expect(plan.changes).toEqual({
      prompts: { changed: true, servers: ['a', 'b'] },
      resources: { changed: true, servers: ['a', 'b'] },
      resourceTemplates: { changed: true, servers: ['a', 'b'] },
      skills: { changed: false, servers: [] },
    });
  });

  it('changes nothing when the source already has exactly these rows', () => {
    const first = planUpstreamItems(request(), none, nobody);
    const again = planUpstreamItems(request({ servers: ['a', 'b'] }), first.rows, nobody);
    expect(Object.values(again.changes).map((change) => change.changed)).toEqual([false, false, false, false]);
  });

  it('notices a changed field and a removed item, touching the servers before and after', () => {
    const first = planUpstreamItems(request({ servers: ['a'] }), none, nobody);
    const second = planUpstreamItems(
      request({ servers: ['c'], prompts: [{ prompt: { name: 'files__greet', description: 'Says hello' }, upstreamName: 'greet' }], resources: [] }),
      first.rows,
      nobody,
    );
    expect(second.changes.prompts).toEqual({ changed: true, servers: ['a', 'c'] });
    expect(second.changes.resources).toEqual({ changed: true, servers: ['a'] });
    expect(second.rows.resources).toEqual([]);
    expect(second.changes.resourceTemplates.changed).toBe(true);
  });

  it('announces every server when the rows were or become on every server', () => {
    const first = planUpstreamItems(request({ servers: [] }), none, nobody);
    const second = planUpstreamItems(request({ servers: ['a'], resources: [], resourceTemplates: [] }), first.rows, nobody);
    expect(second.changes.prompts).toEqual({ changed: true, servers: [] });
    expect(second.changes.resources).toEqual({ changed: true, servers: [] });
  });

  it("refuses names the tenant's own items or another source hold, with the reason, and serves the rest", () => {
    const holders: KeyHolders = {
      prompts: new Map([['files__greet', null]]),
      resources: new Map([['file:///readme', other]]),
      resourceTemplates: new Map([['files__page', null]]),
      skills: new Map(),
    };
    const plan = planUpstreamItems(request(), none, holders);
    expect(plan.refused).toEqual([
      { kind: 'prompt', name: 'files__greet', reason: "the tenant's own prompt files__greet holds this name" },
      { kind: 'resource', name: 'file:///readme', reason: 'upstream source other serves a resource of this URI' },
      { kind: 'resource-template', name: 'files__page', reason: "the tenant's own resource template files__page holds this name" },
    ]);
    expect(plan.rows).toEqual(none);
    expect(Object.values(plan.changes).map((change) => change.changed)).toEqual([false, false, false, false]);
  });

  it('refuses a key listed twice (the first is served) and resources under skill:// that are no file of its skills', () => {
    const plan = planUpstreamItems(
      request({
        prompts: [],
        resourceTemplates: [],
        resources: [
          { resource: { uri: 'file:///a', name: 'first' } },
          { resource: { uri: 'file:///a', name: 'second' } },
          { resource: { uri: 'skill://pdf/SKILL.md', name: 'skill' } },
        ],
      }),
      none,
      nobody,
    );
    expect(plan.rows.resources.map((row) => row.name)).toEqual(['first']);
    expect(plan.refused).toEqual([
      { kind: 'resource', name: 'file:///a', reason: 'the source lists more than one resource of this URI: the first is served' },
      { kind: 'resource', name: 'skill://pdf/SKILL.md', reason: 'skill:// URIs are the files of skills: this is no file of a skill the source serves' },
    ]);
  });
});
