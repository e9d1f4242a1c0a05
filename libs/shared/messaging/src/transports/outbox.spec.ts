import { describe, expect, it } from 'vitest';
import { Outbox } from './outbox';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe(Outbox, () => {
  describe('push', () => {
    it('sends nothing during the turn and everything, in order, at its end', async () => {
      const sent: number[] = [];
      const outbox = new Outbox(() => undefined);
      for (const n of [1, 2, 3]) outbox.push(() => sent.push(n));
      expect(sent).toEqual([]);
      await nextTurn();
      expect(sent).toEqual([1, 2, 3]);
    });

    it('keeps sending the rest of a batch when one send throws, and reports it', async () => {
      const sent: string[] = [];
      const errors: unknown[] = [];
      const outbox = new Outbox((error) => errors.push(error));
      outbox.push(() => sent.push('a'));
      outbox.push(() => {
        throw new Error('closed');
      });
      outbox.push(() => sent.push('c'));
      await nextTurn();
      expect(sent).toEqual(['a', 'c']);
      expect(errors).toHaveLength(1);
    });
  });

  describe('drain', () => {
    it('sends what is queued at once, and nothing twice', async () => {
      const sent: number[] = [];
      const outbox = new Outbox(() => undefined);
      outbox.push(() => sent.push(1));
      outbox.drain();
      expect(sent).toEqual([1]);
      await nextTurn();
      expect(sent).toEqual([1]);
    });
  });
});
