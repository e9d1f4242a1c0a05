import type { OutgoingHttpHeaders } from 'node:http';

/** The part of Node's `ServerResponse` the broker writes through (a fake in unit tests). */
export interface ResponseTarget {
  writeHead(status: number, headers: OutgoingHttpHeaders): unknown;
  write(chunk: string): boolean;
  end(chunk?: string): unknown;
  flushHeaders(): void;
  once(event: 'close', listener: () => void): unknown;
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
}

export type LazyResponseState = 'pending' | 'json' | 'stream' | 'ended';

const SSE_HEADERS: OutgoingHttpHeaders = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  // spec S-105: keep reverse proxies from buffering the stream.
  'x-accel-buffering': 'no',
};

/** One SSE event carrying one JSON-RPC message, with its event id when it has one (S-89). */
export function sseEvent(message: unknown, id?: string): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/** How a resumable stream starts: its priming event's id and the reconnection delay it announces. */
export interface Resumption {
  /** The id of the priming event (S-80); absent: the stream is resumable only once an event with an id went out. */
  primingEventId?: string;
  /** The SSE `retry` field: how long the client waits before reconnecting (S-81). */
  retryMs: number;
}

/**
 * The answer to one POSTed request, upgraded lazily: the final response alone goes out as
 * `application/json`; the first notification before it turns the response into `text/event-stream`
 * (S-79, S-83, S-103), with no buffering delay either way. Writes after the end, or after the client
 * went away, are dropped.
 */
export class LazyResponse {
  private current: LazyResponseState = 'pending';
  private clientGone = false;
  private goneListener: (() => void) | undefined;
  private resumption: Resumption | undefined;
  /** Whether the client got an event id it can resume from. */
  private idSent = false;

  constructor(
    private readonly target: ResponseTarget,
    private readonly extraHeaders: OutgoingHttpHeaders = {},
  ) {
    target.once('close', () => {
      if (this.current === 'ended' || target.writableEnded) return;
      this.clientGone = true;
      this.current = 'ended';
      // Release the exchange on our side too, so nothing holds the connection open (e.g. at shutdown).
      target.end();
      this.goneListener?.();
    });
  }

  get state(): LazyResponseState {
    return this.current;
  }

  /** True while something can still be written (also false once the exchange was ended behind this object's back, at shutdown). */
  get open(): boolean {
    return this.current !== 'ended' && !this.clientGone && !this.target.writableEnded;
  }

  /** Called once if the client closes the connection before the response ended. */
  onClientGone(listener: () => void): void {
    this.goneListener = listener;
  }

  /** True once the client holds an event id of this stream, so it can reconnect with `Last-Event-ID` (S-90). */
  get resumable(): boolean {
    return this.idSent;
  }

  /**
   * Makes the stream resumable: when it opens, its first event is the priming event (an id and empty
   * data, S-80) with the `retry` delay, before anything else. Call it before the stream opens.
   */
  makeResumable(resumption: Resumption): void {
    if (this.current === 'pending') this.resumption = resumption;
  }

  /** Switches to SSE now (a GET stream, or a POST whose answer will be streamed). */
  openStream(): void {
    if (this.current !== 'pending') return;
    this.current = 'stream';
    this.target.writeHead(200, { ...SSE_HEADERS, ...this.extraHeaders });
    this.target.flushHeaders();
    const priming = this.resumption;
    if (priming?.primingEventId === undefined) return;
    this.target.write(`id: ${priming.primingEventId}\nretry: ${priming.retryMs}\ndata: \n\n`);
    this.idSent = true;
  }

  /** Sends a message before the final response, with its event id if it has one; upgrades to SSE on the first one. */
  notify(message: unknown, id?: string): boolean {
    if (!this.open) return false;
    if (this.current === 'pending') this.openStream();
    this.target.write(sseEvent(message, id));
    if (id !== undefined) this.idSent = true;
    return true;
  }

  /**
   * Ends the connection without ending the stream (S-81, polling; also at shutdown): the client waits
   * `retry` and reconnects with `Last-Event-ID`, to any replica. A pending response becomes a primed
   * stream first; one the client cannot resume is simply closed.
   */
  disconnect(): void {
    if (!this.open) return;
    if (this.current === 'pending') this.openStream();
    this.current = 'ended';
    const retry = this.resumption?.retryMs;
    if (retry !== undefined && this.idSent) this.target.end(`retry: ${retry}\n\n`);
    else this.target.end();
  }

  /** An SSE comment that keeps intermediaries from timing the stream out (S-106). */
  keepAlive(): void {
    if (this.current === 'stream' && this.open) this.target.write(': keep-alive\n\n');
  }

  /** Sends the final JSON-RPC response and ends the exchange. */
  respond(message: unknown, status = 200, headers: OutgoingHttpHeaders = {}): void {
    if (!this.open) return;
    if (this.current === 'stream') {
      this.current = 'ended';
      this.target.end(sseEvent(message));
      return;
    }
    this.current = 'ended';
    const body = JSON.stringify(message);
    this.target.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...this.extraHeaders, ...headers });
    this.target.end(body);
  }

  /** `202 Accepted` with no body: a notification or client response was taken (S-77, S-102). */
  accepted(): void {
    this.status(202);
  }

  /** A bodiless answer (e.g. `200` to a DELETE). */
  status(status: number): void {
    if (this.current !== 'pending' || this.clientGone) return;
    this.current = 'ended';
    this.target.writeHead(status, { 'content-length': 0, ...this.extraHeaders });
    this.target.end();
  }

  /** Ends without a response (a cancelled request gets none, S-256; a closed session's streams end). */
  close(): void {
    if (!this.open) return;
    if (this.current === 'pending') this.openStream();
    this.current = 'ended';
    this.target.end();
  }
}
