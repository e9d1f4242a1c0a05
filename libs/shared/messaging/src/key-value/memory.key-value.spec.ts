import { afterEach, describe, expect, it, vi } from 'vitest';
import type { KeyValueChange } from './key-value.store';
import { MemoryKeyValueFactory } from './memory.key-value';

describe(MemoryKeyValueFactory, () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  describe('open', () => {
    it('drops expired entries as later writes come, announcing each like a delete, even if nobody reads them', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(0);
      const bucket = await new MemoryKeyValueFactory().open('sessions', { ttlMs: 1_000 });
      const changes: KeyValueChange[] = [];
      await bucket.watch((change) => changes.push(change));
      await bucket.put('a', '1');
      await bucket.put('b', '2');
      vi.setSystemTime(500);
      // Rewritten: it expires a TTL after this write, not the first.
      await bucket.put('a', '3');
      vi.setSystemTime(1_200);
      await bucket.put('c', '4');
      await Promise.resolve();
      expect(changes.filter((change) => change.value === undefined).map((change) => change.key)).toEqual(['b']);
      await expect(bucket.get('a')).resolves.toMatchObject({ value: '3' });
      vi.setSystemTime(2_300);
      await bucket.put('d', '5');
      await Promise.resolve();
      expect(changes.filter((change) => change.value === undefined).map((change) => change.key)).toEqual(['b', 'a', 'c']);
    });
  });
});
