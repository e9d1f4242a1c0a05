import { describe, expect, it } from 'vitest';
import { READ_CACHE_TTL_MS } from '../resource-store.constants';
import type { ResourceTemplateDefinition } from '../store/store.types';
import { READ_TTL_MS } from '../store/tenant-access';
import { type CachedRead, type ReadCacheLimits, ResourceReadCache } from './resource-read.cache';

const LIMITS: ReadCacheLimits = { maxEntries: 100, maxBytes: 1024 * 1024, maxEntryBytes: 64 * 1024, ttlMs: 5_000 };

const content = (text: string): CachedRead => ({ kind: 'content', content: { uri: 'a://x', text } });
const template: ResourceTemplateDefinition = { name: 'any', uriTemplate: 'a://{id}', text: '{id}', completions: {}, servers: [] };

/** A cache on a clock the test moves. */
function setup(limits: Partial<ReadCacheLimits> = {}) {
  const clock = { now: 1_000 };
  const cache = new ResourceReadCache({ ...LIMITS, ...limits }, () => clock.now);
  return { cache, clock };
}

describe('ResourceReadCache', () => {
  describe('getRead', () => {
    it('answers what was kept for the same tenant, server and URI only', () => {
      const { cache } = setup();
      cache.putRead(cache.begin('t'), 's', 'a://x', content('v'));
      expect(cache.getRead('t', 's', 'a://x')).toEqual(content('v'));
      expect(cache.getRead('t', 's', 'a://y')).toBeUndefined();
      expect(cache.getRead('t', 'other', 'a://x')).toBeUndefined();
      expect(cache.getRead('other', 's', 'a://x')).toBeUndefined();
    });

    it('keeps tenants apart even where a naive key would join their names', () => {
      const { cache } = setup();
      cache.putRead(cache.begin('a/b'), 'c', 'd', content('one'));
      expect(cache.getRead('a', 'b/c', 'd')).toBeUndefined();
      expect(cache.getRead('a', 'b', 'c/d')).toBeUndefined();
    });

    it('stops answering once the TTL passed, counted from when the read began', () => {
      const { cache, clock } = setup({ ttlMs: 5_000 });
      const ticket = cache.begin('t');
      clock.now += 1_000;
      cache.putRead(ticket, 's', 'a://x', content('v'));
      clock.now += 3_999;
      expect(cache.getRead('t', 's', 'a://x')).toEqual(content('v'));
      clock.now += 1;
      expect(cache.getRead('t', 's', 'a://x')).toBeUndefined();
      expect(cache.stats()).toEqual({ entries: 0, bytes: 0 });
    });

    it('keeps nothing from a read that took longer than the TTL', () => {
      const { cache, clock } = setup({ ttlMs: 5_000 });
      const ticket = cache.begin('t');
      clock.now += 5_000;
      cache.putRead(ticket, 's', 'a://x', content('v'));
      expect(cache.stats().entries).toBe(0);
    });
  });

  describe('invalidateTenant', () => {
    it('drops every entry of the tenant, and only of that tenant', () => {
      const { cache } = setup();
      cache.putRead(cache.begin('t'), 's', 'a://x', content('v'));
      cache.putRead(cache.begin('t'), 's', 'a://y', { kind: 'absent' });
      cache.putTemplates(cache.begin('t'), 's', [template]);
      cache.putRead(cache.begin('u'), 's', 'a://x', content('w'));
      cache.invalidateTenant('t');
      expect(cache.getRead('t', 's', 'a://x')).toBeUndefined();
      expect(cache.getRead('t', 's', 'a://y')).toBeUndefined();
      expect(cache.getTemplates('t', 's')).toBeUndefined();
      expect(cache.getRead('u', 's', 'a://x')).toEqual(content('w'));
      expect(cache.stats().entries).toBe(1);
    });

    it('makes a read that began before it keep nothing (it may have read the rows the write replaced)', () => {
      const { cache } = setup();
      const before = cache.begin('t');
      cache.invalidateTenant('t');
      cache.putRead(before, 's', 'a://x', content('old'));
      cache.putTemplates(before, 's', []);
      expect(cache.getRead('t', 's', 'a://x')).toBeUndefined();
      expect(cache.getTemplates('t', 's')).toBeUndefined();
      // A read that began after it keeps what it read.
      cache.putRead(cache.begin('t'), 's', 'a://x', content('new'));
      expect(cache.getRead('t', 's', 'a://x')).toEqual(content('new'));
    });

    it('does not disturb the reads in flight of another tenant', () => {
      const { cache } = setup();
      const ticket = cache.begin('t');
      cache.invalidateTenant('u');
      cache.putRead(ticket, 's', 'a://x', content('v'));
      expect(cache.getRead('t', 's', 'a://x')).toEqual(content('v'));
    });
  });

  describe('bounds', () => {
    it('evicts the least recently used entry beyond the entry bound', () => {
      const { cache } = setup({ maxEntries: 2 });
      cache.putRead(cache.begin('t'), 's', 'a://1', content('1'));
      cache.putRead(cache.begin('t'), 's', 'a://2', content('2'));
      expect(cache.getRead('t', 's', 'a://1')).toEqual(content('1'));
      cache.putRead(cache.begin('t'), 's', 'a://3', content('3'));
      expect(cache.getRead('t', 's', 'a://2')).toBeUndefined();
      expect(cache.getRead('t', 's', 'a://1')).toEqual(content('1'));
      expect(cache.getRead('t', 's', 'a://3')).toEqual(content('3'));
      expect(cache.stats().entries).toBe(2);
    });

    it('evicts the least recently used entries beyond the byte bound, and never keeps an entry over the entry bound', () => {
      const { cache } = setup({ maxBytes: 2_000, maxEntryBytes: 1_500 });
      cache.putRead(cache.begin('t'), 's', 'a://1', content('x'.repeat(1_000)));
      cache.putRead(cache.begin('t'), 's', 'a://2', content('y'.repeat(1_000)));
      expect(cache.stats().entries).toBe(1);
      expect(cache.getRead('t', 's', 'a://2')).toEqual(content('y'.repeat(1_000)));
      expect(cache.stats().bytes).toBeLessThanOrEqual(2_000);
      cache.putRead(cache.begin('t'), 's', 'a://big', content('z'.repeat(1_500)));
      expect(cache.getRead('t', 's', 'a://big')).toBeUndefined();
      expect(cache.getRead('t', 's', 'a://2')).toEqual(content('y'.repeat(1_000)));
    });

    it('counts a replaced entry once', () => {
      const { cache } = setup();
      cache.putRead(cache.begin('t'), 's', 'a://x', content('v'));
      const once = cache.stats();
      cache.putRead(cache.begin('t'), 's', 'a://x', content('v'));
      expect(cache.stats()).toEqual(once);
    });

    it('keeps nothing when disabled (0 entries)', () => {
      const { cache } = setup({ maxEntries: 0 });
      cache.putRead(cache.begin('t'), 's', 'a://x', content('v'));
      cache.putTemplates(cache.begin('t'), 's', [template]);
      expect(cache.getRead('t', 's', 'a://x')).toBeUndefined();
      expect(cache.getTemplates('t', 's')).toBeUndefined();
      expect(cache.stats()).toEqual({ entries: 0, bytes: 0 });
    });
  });

  it('serves an answer no longer than the ttlMs hint lets a client reuse it', () => {
    expect(READ_CACHE_TTL_MS).toBeLessThanOrEqual(READ_TTL_MS);
  });
});
