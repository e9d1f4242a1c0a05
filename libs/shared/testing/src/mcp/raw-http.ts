import { Agent, type ClientRequest, type IncomingHttpHeaders, request } from 'node:http';
import { sseMessages } from './sse';

/** A request sent byte for byte as given (no client library normalising headers or bodies). */
export interface RawRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** An answer that takes longer than this counts as a hang (default 10 s). */
  timeoutMs?: number;
  /** The local address to send from (another loopback address, e.g. `127.0.0.2`, is another client to the server). */
  localAddress?: string;
}

/** The complete answer, with the JSON-RPC messages found in a JSON or SSE body. */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  contentType: string;
  /** Parsed messages; `undefined` when the body is neither parseable JSON nor SSE. */
  messages: unknown[] | undefined;
}

/** A keep-alive agent for many sequential requests to one server. */
export function keepAliveAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: 16 });
}

/** Bodies larger than this are written in chunks, so an early answer (e.g. 413) stops the upload. */
const CHUNKED_WRITE_THRESHOLD = 256 * 1024;
const WRITE_CHUNK = 64 * 1024;
const EARLY_ANSWER_WAIT_MS = 250;

/**
 * Sends one HTTP request with `node:http` and reads the whole answer. A server may answer before the
 * body is fully sent (413 for a body over its limit) and close the connection: the answer still
 * counts, and the write error that follows is ignored. Rejects on timeout or when no answer came.
 */
export async function sendRaw(raw: RawRequest, agent?: Agent): Promise<RawResponse> {
  const url = new URL(raw.url);
  const timeoutMs = raw.timeoutMs ?? 10_000;
  const body = raw.body === undefined ? undefined : Buffer.isBuffer(raw.body) ? raw.body : Buffer.from(raw.body, 'utf8');
  const headers: Record<string, string> = { ...(raw.headers ?? {}) };
  if (body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-length')) {
    headers['content-length'] = String(body.length);
  }
  return new Promise<RawResponse>((resolve, reject) => {
    let answered = false;
    let settled = false;
    const finish = (outcome: { response?: RawResponse; error?: Error }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (outcome.response) resolve(outcome.response);
      else reject(outcome.error ?? new Error('no answer'));
    };
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: raw.method ?? 'POST',
        headers,
        agent: agent ?? false,
        ...(raw.localAddress === undefined ? {} : { localAddress: raw.localAddress }),
        setHost: !Object.keys(headers).some((name) => name.toLowerCase() === 'host'),
      },
      (incoming) => {
        answered = true;
        const chunks: Buffer[] = [];
        const complete = (): void => {
          // An upload cut short by an early answer leaves a socket nobody may reuse.
          if (!outgoing.writableFinished) outgoing.destroy();
          const text = Buffer.concat(chunks).toString('utf8');
          const contentType = String(incoming.headers['content-type'] ?? '');
          finish({
            response: { status: incoming.statusCode ?? 0, headers: incoming.headers, body: text, contentType, messages: parseMessages(contentType, text) },
          });
        };
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', complete);
        // The server closed the connection right after answering (e.g. 413): what arrived is the answer.
        incoming.on('close', complete);
      },
    );
    const timer = setTimeout(() => outgoing.destroy(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
    outgoing.on('error', (error) => {
      if (!answered) finish({ error });
    });
    if (body === undefined || body.length <= CHUNKED_WRITE_THRESHOLD) {
      outgoing.end(body);
      return;
    }
    void writeLargeBody(outgoing, body, () => answered);
  });
}

/**
 * Writes a large body in chunks, stopping at an answer: a server that judges the size from
 * Content-Length answers before reading, so it first waits a moment for that answer (a close with
 * the body half-sent resets the connection and loses it).
 */
async function writeLargeBody(outgoing: ClientRequest, body: Buffer, answered: () => boolean): Promise<void> {
  outgoing.flushHeaders();
  await new Promise<void>((ready) => {
    const early = setTimeout(ready, EARLY_ANSWER_WAIT_MS);
    outgoing.once('response', () => {
      clearTimeout(early);
      ready();
    });
  });
  for (let offset = 0; offset < body.length && !answered() && !outgoing.destroyed; offset += WRITE_CHUNK) {
    if (!outgoing.write(body.subarray(offset, offset + WRITE_CHUNK))) {
      await new Promise<void>((drained) => {
        const done = (): void => {
          outgoing.off('drain', done);
          outgoing.off('response', done);
          outgoing.off('close', done);
          drained();
        };
        outgoing.once('drain', done);
        outgoing.once('response', done);
        outgoing.once('close', done);
      });
    }
  }
  if (!answered() && !outgoing.destroyed) outgoing.end();
}

function parseMessages(contentType: string, body: string): unknown[] | undefined {
  try {
    if (contentType.includes('text/event-stream')) return sseMessages(body);
    if (contentType.includes('json') && body.trim() !== '') {
      const parsed = JSON.parse(body) as unknown;
      return Array.isArray(parsed) ? parsed : [parsed];
    }
  } catch {
    return undefined;
  }
  return body.trim() === '' ? [] : undefined;
}
