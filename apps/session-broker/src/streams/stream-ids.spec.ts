import { describe, expect, it } from 'vitest';
import { MemoryEventLog } from '@mcp-platform/shared-messaging';
import { eventId, newStreamKey, parseEventId, sessionTag } from './stream-ids';

const SESSION = 'session-0123456789abcdef';
const OPENED_AT = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

describe('stream ids', () => {
  describe(newStreamKey, () => {
    it('makes keys the event log accepts, unique for each stream, that never show the session id', async () => {
      const first = newStreamKey(SESSION, 'call', OPENED_AT);
      const second = newStreamKey(SESSION, 'call', OPENED_AT);
      expect(first).not.toBe(second);
      await expect(new MemoryEventLog().append(first, 1, 'event')).resolves.toBeUndefined();
      expect(first).not.toContain(SESSION);
      expect(first.startsWith(`${sessionTag(SESSION)}.c`)).toBe(true);
    });
  });

  describe(parseEventId, () => {
    it('reads back the stream, its kind, its opening time and the position of an id the session was given', () => {
      for (const kind of ['call', 'get'] as const) {
        const key = newStreamKey(SESSION, kind, OPENED_AT);
        for (const position of [0, 1, 42, 999_999_999_999_999]) {
          expect(parseEventId(eventId(key, position), SESSION)).toEqual({ key, kind, openedAt: OPENED_AT, position });
        }
      }
    });

    it('refuses an id of another session’s stream (S-90)', () => {
      const id = eventId(newStreamKey(SESSION, 'call', OPENED_AT), 3);
      expect(parseEventId(id, 'another-session')).toBeUndefined();
    });

    it('refuses malformed ids', () => {
      const key = newStreamKey(SESSION, 'get', OPENED_AT);
      const malformed = [
        '',
        'hello',
        key,
        `${key}:`,
        `${key}:-1`,
        `${key}:1.5`,
        `${key}:1e3`,
        `${key}:01`,
        `${key}:00`,
        `${key}:1234567890123456`,
        `${key}:1:2`,
        ` ${key}:1`,
        `${key}:1 `,
        `${key.replace('.g', '.x')}:1`,
        `${key}x:1`,
        `${key.slice(0, -1)}:1`,
        `${key.replace('.', ':')}:1`,
      ];
      for (const value of malformed) expect(parseEventId(value, SESSION), value).toBeUndefined();
    });
  });
});
