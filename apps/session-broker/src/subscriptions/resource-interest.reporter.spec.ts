import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type EventPayload, sessionBroker } from '@mcp-platform/protocol-contracts';
import type { MessageBus } from '@mcp-platform/shared-messaging';
import type { SessionStore } from '../sessions/session.store';
import type { ListenStreams } from './listen-streams.registry';
import { ResourceInterestReporter } from './resource-interest.reporter';

type Report = EventPayload<typeof sessionBroker.resourceInterestReported>;
type Interest = { tenant: string; uri: string };

function setup() {
  const reports: Report[] = [];
  const legacy: Interest[] = [];
  const modern: Interest[] = [];
  const listeners: Array<() => void> = [];
  const bus = { emit: (_contract: unknown, payload: Report) => void reports.push(payload) } as unknown as MessageBus;
  const sessions = {
    onSubscriptionsChanged: (listener: () => void) => listeners.push(listener),
    subscribedResources: () => [...legacy],
  } as unknown as SessionStore;
  const listens = {
    onResourceSubscriptionsChanged: (listener: () => void) => listeners.push(listener),
    subscribedResources: () => [...modern],
  } as unknown as ListenStreams;
  const reporter = new ResourceInterestReporter(bus, sessions, listens);
  reporter.onApplicationBootstrap();
  const changed = () => listeners.forEach((listener) => listener());
  return { reporter, reports, legacy, modern, changed };
}

describe(ResourceInterestReporter, () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  describe('changed', () => {
    it('reports what was subscribed and released since the last report, once for a burst, both eras together', () => {
      const { reports, legacy, modern, changed } = setup();
      legacy.push({ tenant: 'acme', uri: 'memo://one' });
      changed();
      modern.push({ tenant: 'acme', uri: 'memo://one' }, { tenant: 'acme', uri: 'memo://two' });
      changed();
      vi.advanceTimersByTime(100);
      expect(reports).toHaveLength(1);
      expect(reports[0]?.held).toEqual([
        { tenant: 'acme', uri: 'memo://one' },
        { tenant: 'acme', uri: 'memo://two' },
      ]);
      // The session lets go of memo://one, still held by a listen stream: nothing changed, nothing is sent.
      legacy.length = 0;
      changed();
      vi.advanceTimersByTime(100);
      expect(reports).toHaveLength(1);
      modern.length = 0;
      changed();
      vi.advanceTimersByTime(100);
      expect(reports[1]).toMatchObject({
        held: [],
        released: [
          { tenant: 'acme', uri: 'memo://one' },
          { tenant: 'acme', uri: 'memo://two' },
        ],
      });
    });
  });

  describe('refresh', () => {
    it('reports everything held again every refresh, and releases it all at shutdown', () => {
      const { reporter, reports, legacy, changed } = setup();
      legacy.push({ tenant: 'acme', uri: 'memo://one' });
      changed();
      vi.advanceTimersByTime(100);
      vi.advanceTimersByTime(sessionBroker.RESOURCE_INTEREST_REFRESH_MS);
      expect(reports.at(-1)).toMatchObject({ held: [{ tenant: 'acme', uri: 'memo://one' }], released: [] });
      reporter.onModuleDestroy();
      expect(reports.at(-1)).toMatchObject({ held: [], released: [{ tenant: 'acme', uri: 'memo://one' }] });
      expect(new Set(reports.map((report) => report.holder)).size).toBe(1);
    });
  });
});
