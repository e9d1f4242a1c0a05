import { describe, expect, it } from 'vitest';
import type { Clock } from '../tools/clock';
import type { ToolContext } from '../tools/tool-context';
import { DEMO_TOOLS, textStatistics } from './demo.tools';

function fakeContext(overrides: Partial<ToolContext> = {}) {
  const progress: Array<[number, number | undefined]> = [];
  const slept: number[] = [];
  const clock: Clock = {
    now: () => Date.UTC(2026, 0, 15, 12, 30, 0),
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw signal.reason;
      slept.push(ms);
    },
    schedule: () => () => undefined,
  };
  const context: ToolContext = {
    signal: new AbortController().signal,
    clock,
    progress: (value, total) => progress.push([value, total]),
    log: () => undefined,
    ...overrides,
  };
  return { context, progress, slept };
}

const tool = (name: string) => {
  const found = DEMO_TOOLS.find((candidate) => candidate.definition.name === name);
  if (!found) throw new Error(name);
  return found;
};

describe('demo tools', () => {
  describe('current_time', () => {
    it('formats the injected clock in the requested zone', async () => {
      const result = await tool('current_time').run({ timeZone: 'Asia/Tokyo' }, fakeContext().context);
      expect(result.structuredContent).toMatchObject({ timeZone: 'Asia/Tokyo', iso: '2026-01-15T12:30:00.000Z', epochMs: Date.UTC(2026, 0, 15, 12, 30) });
      expect(String((result.structuredContent as { local: string }).local)).toContain('21:30:00');
    });

    it('answers an unknown zone with an actionable error result', async () => {
      const result = await tool('current_time').run({ timeZone: 'Mars/Olympus' }, fakeContext().context);
      expect(result.isError).toBe(true);
    });
  });

  describe('calculate', () => {
    it('returns the value as structured content', async () => {
      const result = await tool('calculate').run({ expression: '2 * (3 + 4)' }, fakeContext().context);
      expect(result.structuredContent).toEqual({ expression: '2 * (3 + 4)', result: 14 });
    });
    it('answers a bad expression with an error result', async () => {
      const result = await tool('calculate').run({ expression: '2 *' }, fakeContext().context);
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('unexpected end') }] });
    });
  });

  describe('hash_text', () => {
    it('hashes with the chosen algorithm', async () => {
      const result = await tool('hash_text').run({ text: 'abc', algorithm: 'md5' }, fakeContext().context);
      expect(result.structuredContent).toEqual({ algorithm: 'md5', hex: '900150983cd24fb0d6963f7d28e17f72' });
    });
  });

  describe('generate_uuid', () => {
    it('generates the requested number of v4 UUIDs', async () => {
      const result = await tool('generate_uuid').run({ count: 3 }, fakeContext().context);
      const uuids = (result.structuredContent as { uuids: string[] }).uuids;
      expect(uuids).toHaveLength(3);
      for (const uuid of uuids) expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    });
  });

  describe('text_statistics', () => {
    it('counts words, lines, sentences and paragraphs', () => {
      expect(textStatistics('Hello world. How are you?\n\nFine!')).toEqual({ characters: 32, words: 6, lines: 3, sentences: 3, paragraphs: 2 });
      expect(textStatistics('')).toEqual({ characters: 0, words: 0, lines: 0, sentences: 0, paragraphs: 0 });
    });
  });

  describe('long_operation', () => {
    it('reports progress once per step without real timers', async () => {
      const { context, progress, slept } = fakeContext();
      const result = await tool('long_operation').run({ seconds: 3 }, context);
      expect(progress).toEqual([
        [1, 3],
        [2, 3],
        [3, 3],
      ]);
      expect(slept).toEqual([1000, 1000, 1000]);
      expect(result.structuredContent).toEqual({ seconds: 3, steps: 3 });
    });

    it('stops when its signal aborts', async () => {
      const controller = new AbortController();
      controller.abort(new Error('cancelled'));
      const { context } = fakeContext({ signal: controller.signal });
      await expect(tool('long_operation').run({ seconds: 3 }, context)).rejects.toThrow('cancelled');
    });
  });
});
