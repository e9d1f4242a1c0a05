import { describe, expect, it } from 'vitest';
import { CallNotifier } from './call-notifier';

function notifierWith(notify: ConstructorParameters<typeof CallNotifier>[1]) {
  const sent: Array<{ route: string; notification: unknown }> = [];
  const notifier = new CallNotifier('call-1', notify, (payload, route) => sent.push({ route, notification: payload.notification }));
  return { notifier, sent };
}

describe(CallNotifier, () => {
  describe('progress', () => {
    it('sends strictly increasing progress on the caller route', () => {
      const { notifier, sent } = notifierWith({ route: 'broker-1', progress: true });
      notifier.progress(0, 100, 'start');
      notifier.progress(50, 100);
      notifier.progress(100, 100);
      expect(sent).toEqual([
        { route: 'broker-1', notification: { method: 'notifications/progress', params: { progress: 0, total: 100, message: 'start' } } },
        { route: 'broker-1', notification: { method: 'notifications/progress', params: { progress: 50, total: 100 } } },
        { route: 'broker-1', notification: { method: 'notifications/progress', params: { progress: 100, total: 100 } } },
      ]);
    });

    it('drops a value that does not increase', () => {
      const { notifier, sent } = notifierWith({ route: 'r', progress: true });
      expect(notifier.progress(10)).toBe(true);
      expect(notifier.progress(10)).toBe(false);
      expect(notifier.progress(5)).toBe(false);
      expect(notifier.progress(Number.NaN)).toBe(false);
      expect(notifier.progress(10.5)).toBe(true);
      expect(sent).toHaveLength(2);
    });

    it('sends nothing when the caller did not ask for progress', () => {
      const { notifier, sent } = notifierWith({ route: 'r', progress: false, logLevel: 'debug' });
      notifier.progress(1);
      expect(sent).toEqual([]);
    });

    it('sends nothing after the call completed', () => {
      const { notifier, sent } = notifierWith({ route: 'r', progress: true });
      notifier.close();
      expect(notifier.progress(1)).toBe(false);
      expect(sent).toEqual([]);
    });
  });

  describe('log', () => {
    it('sends messages at or above the requested level only', () => {
      const { notifier, sent } = notifierWith({ route: 'r', progress: false, logLevel: 'warning' });
      notifier.log('info', 'too quiet');
      notifier.log('warning', 'heard', 'tool');
      notifier.log('error', { code: 1 });
      expect(sent.map((entry) => entry.notification)).toEqual([
        { method: 'notifications/message', params: { level: 'warning', data: 'heard', logger: 'tool' } },
        { method: 'notifications/message', params: { level: 'error', data: { code: 1 } } },
      ]);
    });

    it('sends no log when the request carried no level', () => {
      const { notifier, sent } = notifierWith({ route: 'r', progress: true });
      expect(notifier.log('emergency', 'x')).toBe(false);
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
