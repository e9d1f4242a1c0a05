import type { IncomingMessage, ServerResponse } from 'node:http';

/** A web-standard request handler (the shape of `createMcpHandler(...).fetch`). */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * Serves one `node:http` exchange with a web-standard handler: the request (with the body already
 * read) becomes a `Request` whose signal aborts when the client goes away, and the `Response` body is
 * streamed as it comes (SSE included). `@modelcontextprotocol/node`'s `toNodeHandler` does the same;
 * this keeps the fixtures off another dependency.
 */
export async function serveWithFetch(handler: FetchHandler, request: IncomingMessage, response: ServerResponse, body: Buffer | undefined): Promise<void> {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  const headers = new Headers();
  for (let index = 0; index + 1 < request.rawHeaders.length; index += 2) {
    headers.append(request.rawHeaders[index] ?? '', request.rawHeaders[index + 1] ?? '');
  }
  const url = new URL(request.url ?? '/', `http://${request.headers.host ?? '127.0.0.1'}`);
  const method = request.method ?? 'GET';
  const hasBody = body !== undefined && method !== 'GET' && method !== 'HEAD';
  const answer = await handler(new Request(url, { method, headers, signal: controller.signal, ...(hasBody && { body }) }));
  const responseHeaders: Record<string, string> = {};
  answer.headers.forEach((value, name) => (responseHeaders[name] = value));
  response.writeHead(answer.status, responseHeaders);
  if (answer.body === null) {
    response.end();
    return;
  }
  // Headers now, so an SSE client sees its stream open before the first event.
  response.flushHeaders();
  const reader = answer.body.getReader();
  controller.signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined), { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      response.write(value);
    }
  } catch {
    // The client went away mid-stream; nothing is left to answer.
  }
  response.end();
}
