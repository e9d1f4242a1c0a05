/** One server-sent event. */
export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
  retry?: number;
}

/** Parses a complete `text/event-stream` body into events (comments dropped, `data` lines joined). */
export function parseSse(body: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of body.replace(/\r\n?/g, '\n').split(/\n\n+/)) {
    const event: SseEvent = { data: '' };
    const data: string[] = [];
    let hasField = false;
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      hasField = true;
      if (field === 'data') data.push(value);
      else if (field === 'id') event.id = value;
      else if (field === 'event') event.event = value;
      else if (field === 'retry' && /^\d+$/.test(value)) event.retry = Number(value);
    }
    if (!hasField) continue;
    event.data = data.join('\n');
    events.push(event);
  }
  return events;
}

/** The JSON messages carried by SSE events (events with empty data, e.g. priming events, skipped). */
export function sseMessages(body: string): unknown[] {
  return parseSse(body)
    .filter((event) => event.data.trim() !== '')
    .map((event) => JSON.parse(event.data) as unknown);
}
