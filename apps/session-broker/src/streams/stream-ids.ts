import { createHash, randomBytes } from 'node:crypto';

/** What an SSE stream of a legacy session carries: one call's messages (a POST), or the session's GET stream. */
export type StreamKind = 'call' | 'get';

/** A stream key read back from an event id. */
export interface ParsedStreamKey {
  key: string;
  kind: StreamKind;
  /** When the stream was opened (epoch ms). */
  openedAt: number;
}

/** An event id read back from `Last-Event-ID`. */
export interface ParsedEventId extends ParsedStreamKey {
  /** The event's position in its stream's log; 0 names the stream's start (the priming event). */
  position: number;
}

const KIND_LETTER: Record<StreamKind, string> = { call: 'c', get: 'g' };
/** `<session tag>.<c|g><opened at, base 36, 9 digits><16 random characters>:<position>`. */
const EVENT_ID = /^([A-Za-z0-9_-]{22})\.([cg])([0-9a-z]{9})([A-Za-z0-9_-]{16}):(0|[1-9][0-9]{0,14})$/;

/**
 * The session's tag in its stream keys: a digest of the session id (which never appears in a key, a
 * log subject or an event id), so a `Last-Event-ID` can be checked to name a stream of the session that
 * presents it (S-90: never replay another stream's, let alone another session's, messages).
 */
export function sessionTag(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('base64url').slice(0, 22);
}

/**
 * A new stream's key: the session's tag, the kind, the opening time and randomness. Its events' ids
 * are `<key>:<position>` (S-89: unique across the session's streams, and they name their stream). A
 * key is never reused, so positions never restart within it.
 */
export function newStreamKey(sessionId: string, kind: StreamKind, now = Date.now()): string {
  return `${sessionTag(sessionId)}.${KIND_LETTER[kind]}${now.toString(36).padStart(9, '0')}${randomBytes(12).toString('base64url')}`;
}

export function eventId(key: string, position: number): string {
  return `${key}:${position}`;
}

/** `Last-Event-ID` read as one of the session's event ids; `undefined` when it is not one (malformed, or another session's). */
export function parseEventId(value: string, sessionId: string): ParsedEventId | undefined {
  const match = EVENT_ID.exec(value);
  if (!match || match[1] !== sessionTag(sessionId)) return undefined;
  const [, , letter, openedAt, , position] = match;
  return {
    key: value.slice(0, value.lastIndexOf(':')),
    kind: letter === 'c' ? 'call' : 'get',
    openedAt: Number.parseInt(openedAt as string, 36),
    position: Number(position),
  };
}
