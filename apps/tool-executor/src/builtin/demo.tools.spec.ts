import { describe, expect, it } from 'vitest';
import { FakeClient, fakeContext } from '../../test/fake-tool-context';
import { ClientRequestFailed, type ElicitResult } from '../tools/tool-context';
import { DEMO_TOOLS, textStatistics } from './demo.tools';

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

  describe('export_report', () => {
    it('builds rows each second, reporting progress, and answers them as structured content and text', async () => {
      const { context, progress, slept } = fakeContext();
      const result = await tool('export_report').run({ seconds: 2 }, context);
      expect(progress).toEqual([
        [1, 2],
        [2, 2],
      ]);
      expect(slept).toEqual([1000, 1000]);
      expect(result).toEqual({ content: [{ type: 'text', text: 'Report ready: 500 rows in 2 s' }], structuredContent: { rows: 500, seconds: 2 } });
    });

    it('with confirm, asks the user first and builds only once they confirmed', async () => {
      const confirming = new FakeClient({ elicitation: {} }, { elicit: { action: 'accept', content: { confirmed: true } } });
      const confirmed = fakeContext({ client: confirming });
      await expect(tool('export_report').run({ seconds: 1, confirm: true }, confirmed.context)).resolves.toMatchObject({
        structuredContent: { rows: 250, seconds: 1 },
      });
      expect(confirming.sent).toEqual([{ method: 'elicitation/create', params: expect.objectContaining({ message: 'Export a report over 1 s?' }) }]);

      const declining = fakeContext({ client: new FakeClient({ elicitation: {} }, { elicit: { action: 'decline' } }) });
      await expect(tool('export_report').run({ seconds: 1, confirm: true }, declining.context)).resolves.toEqual({
        content: [{ type: 'text', text: 'The user did not confirm the export; nothing was built' }],
      });
      expect(declining.progress).toEqual([]);

      const unaskable = fakeContext({ client: new FakeClient({}) });
      await expect(tool('export_report').run({ seconds: 1, confirm: true }, unaskable.context)).resolves.toMatchObject({ isError: true });
      expect(unaskable.slept).toEqual([]);
    });

    it('runs only as a task and is not idempotent', () => {
      expect(tool('export_report').definition).toMatchObject({
        execution: { taskSupport: 'required' },
        annotations: { idempotentHint: false, destructiveHint: false },
      });
      expect(tool('long_operation').definition.execution).toEqual({ taskSupport: 'optional' });
    });
  });

  describe('confirm_action', () => {
    const withAnswer = (elicit: ElicitResult) => new FakeClient({ elicitation: {} }, { elicit });

    it('asks for a boolean confirmation in form mode', async () => {
      const client = withAnswer({ action: 'accept', content: { confirmed: true } });
      await tool('confirm_action').run({ action: 'delete 3 files' }, fakeContext({ client }).context);
      expect(client.sent).toEqual([
        {
          method: 'elicitation/create',
          params: {
            message: 'Please confirm: delete 3 files',
            requestedSchema: {
              type: 'object',
              properties: { confirmed: { type: 'boolean', title: 'Go ahead', description: 'Check to confirm the action', default: false } },
              required: ['confirmed'],
            },
          },
        },
      ]);
    });

    it('reports a checked box as confirmed', async () => {
      const result = await tool('confirm_action').run(
        { action: 'delete 3 files' },
        fakeContext({ client: withAnswer({ action: 'accept', content: { confirmed: true } }) }).context,
      );
      expect(result).toEqual({ content: [], structuredContent: { action: 'delete 3 files', response: 'accept', confirmed: true } });
    });

    it('reports an unchecked box as accepted but not confirmed', async () => {
      const result = await tool('confirm_action').run(
        { action: 'x' },
        fakeContext({ client: withAnswer({ action: 'accept', content: { confirmed: false } }) }).context,
      );
      expect(result.structuredContent).toEqual({ action: 'x', response: 'accept', confirmed: false });
    });

    it.each(['decline', 'cancel'] as const)('reports %s as not confirmed', async (action) => {
      const result = await tool('confirm_action').run({ action: 'x' }, fakeContext({ client: withAnswer({ action }) }).context);
      expect(result.structuredContent).toEqual({ action: 'x', response: action, confirmed: false });
    });

    it('refuses an accepted form without a boolean confirmed field', async () => {
      const result = await tool('confirm_action').run(
        { action: 'x' },
        fakeContext({ client: withAnswer({ action: 'accept', content: { confirmed: 'yes' } }) }).context,
      );
      expect(result).toEqual({
        content: [{ type: 'text', text: 'The client accepted the confirmation form without a boolean "confirmed" field' }],
        isError: true,
      });
    });

    it('answers with an error result when the client cannot elicit', async () => {
      const client = new FakeClient();
      const result = await tool('confirm_action').run({ action: 'x' }, fakeContext({ client }).context);
      expect(result).toEqual({
        content: [{ type: 'text', text: 'Cannot ask the user for a confirmation: the client does not support elicitation' }],
        isError: true,
      });
      expect(client.sent).toEqual([]);
    });
  });

  describe('summarize_text', () => {
    const summary = {
      role: 'assistant' as const,
      content: { type: 'text' as const, text: 'A short summary.' },
      model: 'claude-3-5-haiku',
      stopReason: 'endTurn',
    };

    it("asks the client's model with a system prompt, model hints and maxTokens", async () => {
      const client = new FakeClient({ sampling: {} }, { createMessage: summary });
      await tool('summarize_text').run({ text: 'Long text.', maxTokens: 120 }, fakeContext({ client }).context);
      expect(client.sent).toEqual([
        {
          method: 'sampling/createMessage',
          params: {
            messages: [{ role: 'user', content: { type: 'text', text: 'Summarize the following text:\n\nLong text.' } }],
            systemPrompt: 'You write short, faithful summaries: the main points only, in the language of the text, without preamble.',
            modelPreferences: {
              hints: [{ name: 'haiku' }, { name: 'flash' }, { name: 'mini' }],
              speedPriority: 0.8,
              costPriority: 0.6,
              intelligencePriority: 0.4,
            },
            maxTokens: 120,
          },
        },
      ]);
    });

    it('returns the summary and the model that wrote it', async () => {
      const client = new FakeClient({ sampling: {} }, { createMessage: summary });
      const result = await tool('summarize_text').run({ text: 'Long text.' }, fakeContext({ client }).context);
      expect(result).toEqual({ content: [], structuredContent: { summary: 'A short summary.', model: 'claude-3-5-haiku', stopReason: 'endTurn' } });
      expect(client.sent[0]).toMatchObject({ params: { maxTokens: 300 } });
    });

    it('answers a non-text answer with an error result', async () => {
      const client = new FakeClient(
        { sampling: {} },
        { createMessage: { role: 'assistant', content: { type: 'image', data: 'AAAA', mimeType: 'image/png' }, model: 'm' } },
      );
      const result = await tool('summarize_text').run({ text: 'Long text.' }, fakeContext({ client }).context);
      expect(result).toEqual({ content: [{ type: 'text', text: "The client's model (m) answered with image content instead of text" }], isError: true });
    });

    it('answers a rejected request with an error result naming the client error', async () => {
      const client = new FakeClient({ sampling: {} }, { createMessage: new ClientRequestFailed(-1, 'User rejected sampling request') });
      const result = await tool('summarize_text').run({ text: 'Long text.' }, fakeContext({ client }).context);
      expect(result).toEqual({
        content: [{ type: 'text', text: "Cannot ask the client's model for a summary: MCP error -1: User rejected sampling request" }],
        isError: true,
      });
    });

    it('answers with an error result when the client cannot sample', async () => {
      const result = await tool('summarize_text').run({ text: 'Long text.' }, fakeContext().context);
      expect(result).toEqual({
        content: [{ type: 'text', text: "Cannot ask the client's model for a summary: the client does not support sampling" }],
        isError: true,
      });
    });

    it('rethrows what is not the client refusing (the call stopping)', async () => {
      const client = new FakeClient({ sampling: {} }, { createMessage: new Error('cancelled') });
      await expect(tool('summarize_text').run({ text: 'Long text.' }, fakeContext({ client }).context)).rejects.toThrow('cancelled');
    });
  });

  describe('list_client_roots', () => {
    it("returns the client's roots, uri and name only", async () => {
      const client = new FakeClient(
        { roots: { listChanged: true } },
        { listRoots: { roots: [{ uri: 'file:///home/ada/project', name: 'project', _meta: { x: 1 } }, { uri: 'file:///tmp' }] } },
      );
      const result = await tool('list_client_roots').run({}, fakeContext({ client }).context);
      expect(client.sent).toEqual([{ method: 'roots/list' }]);
      expect(result).toEqual({ content: [], structuredContent: { roots: [{ uri: 'file:///home/ada/project', name: 'project' }, { uri: 'file:///tmp' }] } });
    });

    it('answers with an error result when the client has no roots', async () => {
      const result = await tool('list_client_roots').run({}, fakeContext().context);
      expect(result).toEqual({ content: [{ type: 'text', text: "Cannot list the client's roots: the client does not support roots" }], isError: true });
    });

    it('answers a client error with an error result', async () => {
      const client = new FakeClient({ roots: {} }, { listRoots: new ClientRequestFailed(-32601, 'Method not found') });
      const result = await tool('list_client_roots').run({}, fakeContext({ client }).context);
      expect(result).toEqual({ content: [{ type: 'text', text: "Cannot list the client's roots: MCP error -32601: Method not found" }], isError: true });
    });
  });
});
