import { describe, expect, it } from 'vitest';
import { CallNotifier } from './call-notifier';
import type { CallSink, OutgoingMessage } from './call-output';

/** A notifier whose output records the messages it was given, in order. */
function notifierWith(notify: ConstructorParameters<typeof CallNotifier>[0], onProgress?: ConstructorParameters<typeof CallNotifier>[2]) {
  const sent: OutgoingMessage[] = [];
  const output = { send: (message: OutgoingMessage) => void sent.push(message) } as unknown as CallSink;
  return { notifier: new CallNotifier(notify, output, onProgress), sent };
}

const progressOf = (params: Record<string, unknown>) => ({ jsonrpc: '2.0', method: 'notifications/progress', params });

describe(CallNotifier, () => {
  describe('progress', () => {
    it("hands a task's progress to onProgress with or without a token, increasing only, none after close", () => {
      const heard: Array<[number, number | undefined, string | undefined]> = [];
      const { notifier, sent } = notifierWith({}, (progress, total, message) => void heard.push([progress, total, message]));
      expect(notifier.progress(1, 3, 'one')).toBe(false);
      notifier.progress(1, 3);
      notifier.progress(2);
      notifier.close();
      notifier.progress(3, 3);
      expect(heard).toEqual([
        [1, 3, 'one'],
        [2, undefined, undefined],
      ]);
      expect(sent).toEqual([]);
    });

    it('sends strictly increasing progress, each echoing the progress token (S-264, S-266)', () => {
      const { notifier, sent } = notifierWith({ progressToken: 'token-7' });
      notifier.progress(0, 100, 'start');
      notifier.progress(50, 100);
      notifier.progress(100, 100);
      expect(sent).toEqual([
        progressOf({ progressToken: 'token-7', progress: 0, total: 100, message: 'start' }),
        progressOf({ progressToken: 'token-7', progress: 50, total: 100 }),
        progressOf({ progressToken: 'token-7', progress: 100, total: 100 }),
      ]);
    });

    it('echoes an integer token as a number, and 0 counts as a token', () => {
      const { notifier, sent } = notifierWith({ progressToken: 0 });
      expect(notifier.progress(1)).toBe(true);
      expect(sent).toEqual([progressOf({ progressToken: 0, progress: 1 })]);
    });

    it('drops a value that does not increase (S-266)', () => {
      const { notifier, sent } = notifierWith({ progressToken: 't' });
      expect(notifier.progress(10)).toBe(true);
      expect(notifier.progress(10)).toBe(false);
      expect(notifier.progress(5)).toBe(false);
      expect(notifier.progress(Number.NaN)).toBe(false);
      expect(notifier.progress(10.5)).toBe(true);
      expect(sent).toHaveLength(2);
    });

    it('sends nothing when the request carried no progress token', () => {
      const { notifier, sent } = notifierWith({ logLevel: 'debug' });
      expect(notifier.progress(1)).toBe(false);
      expect(sent).toEqual([]);
    });

    it('sends nothing after the call completed (S-267)', () => {
      const { notifier, sent } = notifierWith({ progressToken: 't' });
      notifier.close();
      expect(notifier.progress(1)).toBe(false);
      expect(sent).toEqual([]);
    });
  });

  describe('log', () => {
    it('sends messages at or above the requested level only', () => {
      const { notifier, sent } = notifierWith({ logLevel: 'warning' });
      expect(notifier.log('info', 'too quiet')).toBe(false);
      expect(notifier.log('warning', 'heard', 'tool')).toBe(true);
      notifier.log('error', { code: 1 });
      expect(sent).toEqual([
        { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'warning', data: 'heard', logger: 'tool' } },
        { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', data: { code: 1 } } },
      ]);
    });

    it('sends no log when the request carried no level', () => {
      const { notifier, sent } = notifierWith({ progressToken: 't' });
      expect(notifier.log('emergency', 'x')).toBe(false);
      expect(sent).toEqual([]);
    });

    it('sends no log after the call completed', () => {
      const { notifier, sent } = notifierWith({ logLevel: 'debug' });
      notifier.close();
      expect(notifier.log('error', 'late')).toBe(false);
      expect(sent).toEqual([]);
    });

    it('sends nothing without notify at all', () => {
      const { notifier, sent } = notifierWith(undefined);
      notifier.log('error', 'x');
      notifier.progress(1);
      expect(sent).toEqual([]);
    });
  });
});
