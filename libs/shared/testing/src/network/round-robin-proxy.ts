import { createServer, type IncomingMessage, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A reverse proxy on loopback that sends each request to the next of its targets in turn. */
export interface RoundRobinProxy {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly url: string;
  /** How many requests each target received, in the order of the targets. */
  readonly counts: readonly number[];
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) a proxy does not forward. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

/**
 * Starts a round-robin reverse proxy in front of `targets` (base URLs such as `http://127.0.0.1:3100`),
 * the way a load balancer without stickiness sits in front of broker replicas: request n goes to target
 * n mod k, so with two targets every request lands on the other replica than the one before. The `Host`
 * header is passed on unchanged (the backends see the proxy's host, as behind an ingress that preserves
 * it), bodies and answers are streamed both ways (SSE included), and a client that goes away closes its
 * upstream request. A target that cannot be reached answers 502.
 */
export async function startRoundRobinProxy(targets: readonly string[], options: { port?: number } = {}): Promise<RoundRobinProxy> {
  if (targets.length === 0) throw new Error('a round-robin proxy needs at least one target');
  const upstreams = targets.map((target) => new URL(target));
  const counts = upstreams.map(() => 0);
  let turn = 0;
  const sockets = new Set<Socket>();

  const forward = (incoming: IncomingMessage, outgoing: ServerResponse): void => {
    const index = turn++ % upstreams.length;
    counts[index] = (counts[index] ?? 0) + 1;
    const upstream = upstreams[index] as URL;
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    const proxied = httpRequest({ host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers }, (answer) => {
      const answerHeaders: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) answerHeaders[name] = value;
      }
      outgoing.writeHead(answer.statusCode ?? 502, answerHeaders);
      // SSE: every chunk goes out as it arrives.
      outgoing.flushHeaders();
      answer.pipe(outgoing);
      answer.once('error', () => outgoing.destroy());
    });
    proxied.once('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'text/plain' }).end(`bad gateway: ${upstream.origin} did not answer`);
      else outgoing.destroy();
    });
    outgoing.once('close', () => proxied.destroy());
    incoming.pipe(proxied);
  };

  const server: Server = createServer(forward);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
