import { describe, expect, it } from 'vitest';
import { ResourceInterestTable } from './resource-interest.table';

const one = { tenant: 'acme', uri: 'memo://one' };

describe(ResourceInterestTable, () => {
  describe('report', () => {
    it('wants a URI while any holder reports it, and says when that changes', () => {
      const table = new ResourceInterestTable(60_000);
      expect(table.report('a', [one], [], 0)).toEqual(new Set(['acme']));
      expect(table.report('b', [one], [], 0)).toEqual(new Set());
      expect(table.report('a', [], [one], 0)).toEqual(new Set());
      expect(table.has('acme', 'memo://one')).toBe(true);
      expect(table.report('b', [], [one], 0)).toEqual(new Set(['acme']));
      expect(table.has('acme', 'memo://one')).toBe(false);
      expect(table.tenants()).toEqual([]);
    });

    it('ignores a release by a holder that never held the URI', () => {
      const table = new ResourceInterestTable(60_000);
      table.report('a', [one], [], 0);
      expect(table.report('b', [], [one], 0)).toEqual(new Set());
      expect([...table.urisOf('acme')]).toEqual(['memo://one']);
    });
  });

  describe('expire', () => {
    it('lets go of what a silent holder reported once its TTL passes, not of what is reported again', () => {
      const table = new ResourceInterestTable(60_000);
      const two = { tenant: 'acme', uri: 'memo://two' };
      table.report('dead', [one], [], 0);
      table.report('alive', [two], [], 0);
      table.report('alive', [two], [], 30_000);
      expect(table.expire(59_999)).toEqual(new Set());
      expect(table.expire(60_000)).toEqual(new Set(['acme']));
      expect([...table.urisOf('acme')]).toEqual(['memo://two']);
    });
  });
});
