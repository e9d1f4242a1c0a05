import { setMaxListeners } from 'node:events';
import { STATUS_CODES } from 'node:http';
import type { FetchLike } from '@modelcontextprotocol/client';
import type { Dispatcher } from 'undici';

/** The most one answer of an upstream may carry (a JSON body, or everything of one POST's SSE stream). */
export const UPSTREAM_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** Raised inside an upstream's response stream that went past the cap; the request fails with it. */
export class UpstreamResponseTooLarge extends Error {
  constructor(maxBytes: number) {
    super(`the upstream's answer went past ${maxBytes} bytes`);
    this.name = 'UpstreamResponseTooLarge';
  }
}

/** Statuses whose response has no body (Fetch standard, "null body status"): a `Response` refuses one. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The fetch the SDK's HTTP transports use for one upstream: every connection through the SSRF-guarded
 * agent (the address checked is the one connected to), no redirect followed (the SDK sees the 3xx and
 * fails; an upstream that moved is the admin's to update), the source's static headers on every request,
 * and answers cut at `maxBytes`: a POST's body, or a GET stream's total (a GET stream that floods is cut
 * and reopened by the SDK, which resumes it).
 *
 * It speaks to the agent's dispatcher directly rather than through undici's `fetch`: WHATWG fetch builds
 * a `Request`, a body stream for the JSON it sends and a response stream per call, and under load that
 * machinery cost the executor more CPU than the upstream's whole answer (bench/RESULTS.md, Run 16). The
 * SDK still gets a standard `Response`, whose body is one stream fed from the socket with backpressure.
 */
export function upstreamFetch(agent: Dispatcher, headers: Record<string, string>, maxBytes = UPSTREAM_MAX_RESPONSE_BYTES): FetchLike {
  const fixed = Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value] as const);
  return (url, init) =>
    new Promise<Response>((resolve, reject) => {
      const target = typeof url === 'string' ? new URL(url) : url;
      const { body, contentType } = requestBody(init?.body);
      const options: Dispatcher.DispatchOptions = {
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: (init?.method ?? 'GET').toUpperCase() as Dispatcher.HttpMethod,
        headers: requestHeaders(init?.headers, fixed, contentType),
        ...(body === undefined ? {} : { body }),
      };
      const handler = new ResponseHandler({ resolve, reject, maxBytes, ...(init?.signal ? { signal: init.signal } : {}) });
      if (handler.started()) agent.dispatch(options, handler);
    });
}

/** The request's headers as undici takes them (`[name, value, …]`), the source's static ones winning. */
function requestHeaders(init: RequestInit['headers'], fixed: ReadonlyArray<readonly [string, string]>, contentType: string | undefined): string[] {
  const merged = new Map<string, string>();
  for (const [name, value] of new Headers(init)) merged.set(name, value);
  if (contentType !== undefined && !merged.has('content-type')) merged.set('content-type', contentType);
  for (const [name, value] of fixed) merged.set(name, value);
  return [...merged].flat();
}

/** What the SDK sends: JSON text, or the form of an OAuth token request (`URLSearchParams`, as fetch would encode it). */
function requestBody(body: RequestInit['body']): { body?: string | Uint8Array; contentType?: string } {
  if (body === undefined || body === null) return {};
  if (typeof body === 'string') return { body };
  if (body instanceof URLSearchParams) return { body: body.toString(), contentType: 'application/x-www-form-urlencoded;charset=UTF-8' };
  if (body instanceof Uint8Array) return { body };
  if (body instanceof ArrayBuffer) return { body: new Uint8Array(body) };
  throw new TypeError(`an upstream request body of type ${Object.prototype.toString.call(body)} is not supported`);
}

/** Header bytes as fetch reads them (a byte string). */
const latin1 = (bytes: Buffer | undefined): string => bytes?.toString('latin1') ?? '';

interface Settle {
  resolve: (response: Response) => void;
  reject: (error: unknown) => void;
  maxBytes: number;
  signal?: AbortSignal;
}

/**
 * One request's undici handler: it answers the `Response` once the headers are in, then feeds its body
 * stream, pausing the socket while the reader is behind and cutting the answer at the cap. Failures
 * read as fetch's do (a `TypeError('fetch failed')` with the cause before the headers, the body
 * stream's error after), and the caller's abort is the signal's reason either way.
 */
class ResponseHandler implements Dispatcher.DispatchHandlers {
  private abortRequest: ((reason?: Error) => void) | undefined;
  private reason: unknown;
  private body: ReadableStreamDefaultController<Uint8Array> | undefined;
  private resumeSocket: (() => void) | undefined;
  private seen = 0;
  private done = false;
  private readonly onAbort = (): void => this.abort(this.settle.signal?.reason);

  constructor(private readonly settle: Settle) {}

  /** Whether the request may go: a signal already aborted refuses it at once, as fetch does. */
  started(): boolean {
    const signal = this.settle.signal;
    if (signal?.aborted) {
      this.settle.reject(signal.reason);
      return false;
    }
    if (signal) {
      // The SDK passes its transport's one signal to every request when the call has none of its own:
      // each request in flight listens to it until it ends, so many at once are no leak.
      setMaxListeners(0, signal);
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
    return true;
  }

  onConnect(abort: (reason?: Error) => void): void {
    if (this.reason !== undefined) abort(this.reason as Error);
    else this.abortRequest = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void, statusText: string): boolean {
    if (statusCode < 200) return true;
    this.resumeSocket = resume;
    const headers = new Headers();
    for (let index = 0; index + 1 < rawHeaders.length; index += 2) headers.append(latin1(rawHeaders[index]), latin1(rawHeaders[index + 1]));
    const stream = NULL_BODY_STATUSES.has(statusCode)
      ? null
      : new ReadableStream<Uint8Array>({
          start: (controller) => {
            this.body = controller;
          },
          pull: () => this.resumeSocket?.(),
          cancel: (reason: unknown) => this.abort(reason ?? new Error('the response body was cancelled')),
        });
    this.settle.resolve(new Response(stream, { status: statusCode, statusText: statusText || STATUS_CODES[statusCode] || '', headers }));
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.seen += chunk.byteLength;
    if (this.seen > this.settle.maxBytes) {
      this.abort(new UpstreamResponseTooLarge(this.settle.maxBytes));
      return false;
    }
    // undici hands an empty chunk on resuming a paused parser: queued, it would wake the reader for nothing, which pulls again.
    if (!this.body || chunk.byteLength === 0) return true;
    this.body.enqueue(chunk);
    return (this.body.desiredSize ?? 0) > 0;
  }

  onComplete(): void {
    this.finish();
    this.body?.close();
  }

  onError(error: Error): void {
    if (this.done) return;
    this.finish();
    const reason = this.reason ?? error;
    if (this.resumeSocket === undefined) this.settle.reject(this.reason === undefined ? new TypeError('fetch failed', { cause: error }) : reason);
    else this.body?.error(reason);
  }

  /** Stops the request with `reason` (the caller's abort, the cap, the reader's cancel): `onError` follows. */
  private abort(reason: unknown): void {
    if (this.done || this.reason !== undefined) return;
    this.reason = reason;
    this.abortRequest?.(reason as Error);
  }

  private finish(): void {
    this.done = true;
    this.settle.signal?.removeEventListener('abort', this.onAbort);
  }
}
