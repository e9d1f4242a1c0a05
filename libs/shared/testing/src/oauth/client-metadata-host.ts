import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A document to serve: an object (its `client_id` defaults to its own URL), a raw body, or a builder of either. */
export type ClientMetadataSource = Record<string, unknown> | string | ((url: string) => Record<string, unknown> | string);

/** Options of one served document. */
export interface ServedDocumentOptions {
  /** Response headers (default `content-type: application/json`, `cache-control: max-age=60`). */
  headers?: Record<string, string>;
  /** HTTP status (default 200). */
  status?: number;
}

/** The HTTPS host of Client ID Metadata Documents for one test file. */
export interface ClientMetadataHost {
  /** URL of the document given at start: `https://127.0.0.1:<port>/clients/<name>.json`, its client_id. */
  readonly url: string;
  /** `https://127.0.0.1:<port>`. */
  readonly origin: string;
  /** The self-signed certificate (PEM), to give the authorization server as an extra trusted CA. */
  readonly caPem: string;
  /** The same certificate as a file (for a process started with `CIMD_CA_FILE`); removed on close. */
  readonly caFile: string;
  /** Paths requested so far, in order: shows whether the authorization server fetched a document at all. */
  readonly requests: readonly string[];
  /** Serves (or replaces) the document at `/clients/<name>.json`; returns its URL. */
  serve(name: string, source: ClientMetadataSource, options?: ServedDocumentOptions): string;
  close(): Promise<void>;
}

const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * Starts an HTTPS server on 127.0.0.1 (a free port) with a certificate generated now by the
 * `openssl` CLI into a temporary directory (RSA 2048, one day, subjectAltName IP:127.0.0.1), serving
 * Client ID Metadata Documents at `/clients/<name>.json`. Start the platform with
 * `cimd: { allowedHosts: ['127.0.0.1'], caPem }` so its authorization server fetches from it.
 * Bounded: GET only, 5 s per request, small headers, and `close()` ends every connection.
 */
export async function startClientMetadataHost(document: ClientMetadataSource, options: { name?: string } = {}): Promise<ClientMetadataHost> {
  const directory = await mkdtemp(join(tmpdir(), 'mcp-cimd-'));
  const { keyFile, caFile } = await generateCertificate(directory);
  const [key, caPem] = await Promise.all([readFile(keyFile, 'utf8'), readFile(caFile, 'utf8')]);

  const documents = new Map<string, { body: string; status: number; headers: Record<string, string> }>();
  const requests: string[] = [];
  const server = createServer({ key, cert: caPem, requestTimeout: 5_000, headersTimeout: 5_000, maxHeaderSize: 16 * 1024 }, (request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    requests.push(path);
    const served = request.method === 'GET' || request.method === 'HEAD' ? documents.get(path) : undefined;
    if (served === undefined) {
      response.writeHead(request.method === 'GET' || request.method === 'HEAD' ? 404 : 405, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    response.writeHead(served.status, { 'content-length': Buffer.byteLength(served.body), ...served.headers });
    response.end(request.method === 'HEAD' ? undefined : served.body);
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const serve = (name: string, source: ClientMetadataSource, served: ServedDocumentOptions = {}): string => {
    if (!NAME.test(name)) throw new Error(`invalid document name "${name}"`);
    const url = `${origin}/clients/${name}.json`;
    const built = typeof source === 'function' ? source(url) : source;
    const body = typeof built === 'string' ? built : JSON.stringify({ client_id: url, ...built });
    documents.set(`/clients/${name}.json`, {
      body,
      status: served.status ?? 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'max-age=60', ...served.headers },
    });
    return url;
  };

  const url = serve(options.name ?? 'e2e-client', document);
  let closed = false;
  return {
    url,
    origin,
    caPem,
    caFile,
    get requests() {
      return [...requests];
    },
    serve,
    async close() {
      if (closed) return;
      closed = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** A self-signed certificate for 127.0.0.1 made by the `openssl` CLI in `directory` (removed when that fails). */
async function generateCertificate(directory: string): Promise<{ keyFile: string; caFile: string }> {
  const keyFile = join(directory, 'key.pem');
  const caFile = join(directory, 'cert.pem');
  try {
    await run(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        caFile,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { timeout: 30_000 },
    );
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw new Error(`openssl could not generate the test certificate: ${(error as Error).message}`);
  }
  return { keyFile, caFile };
}
