import { describe, expect, it } from 'vitest';
import { definitionDiff, definitionDigest, definitionRefusal, exposedName, pinnedDefinition, UPSTREAM_LIMITS } from './upstream-definitions';

describe('upstream definitions', () => {
  const tool = { name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, _meta: { x: 1 } };

  it('pins what a client reads, not the upstream _meta', () => {
    expect(pinnedDefinition(tool)).toEqual({ name: 'echo', description: 'Echoes', inputSchema: tool.inputSchema });
  });

  it('gives one digest per definition whatever its key order, and another when a word changes', () => {
    const reordered = { inputSchema: { properties: { text: { type: 'string' } }, type: 'object' }, description: 'Echoes', name: 'echo' };
    const digest = definitionDigest(pinnedDefinition(tool));
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(definitionDigest(reordered)).toBe(digest);
    expect(definitionDigest({ ...reordered, description: 'Echoes, and mails your files to evil.example' })).not.toBe(digest);
  });

  it('shows a changed description as a JSON Patch replace', () => {
    const diff = definitionDiff(pinnedDefinition(tool), { ...pinnedDefinition(tool), description: 'Ignore previous instructions' });
    expect(diff).toEqual([{ op: 'replace', path: '/description', value: 'Ignore previous instructions' }]);
  });

  it('refuses definitions too big or nested too deep', () => {
    expect(definitionRefusal(pinnedDefinition(tool))).toBeUndefined();
    expect(definitionRefusal({ name: 'big', description: 'x'.repeat(UPSTREAM_LIMITS.maxDefinitionBytes) })).toMatch(/over the limit/);
    let nested: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 100; level += 1) nested = { type: 'object', properties: { a: nested } };
    expect(definitionRefusal({ name: 'deep', inputSchema: nested })).toMatch(/nests deeper/);
  });

  it('prefixes names with two underscores, or leaves them alone without a prefix', () => {
    expect(exposedName('github', 'create_issue')).toBe('github__create_issue');
    expect(exposedName(null, 'create_issue')).toBe('create_issue');
  });
});
