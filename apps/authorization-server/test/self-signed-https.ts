import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** An HTTPS server on 127.0.0.1 with a certificate made for this test run (openssl, temp dir). */
export interface SelfSignedHttps {
  /** `https://127.0.0.1:<port>` */
  origin: string;
  /** The certificate, to trust as an extra CA. */
  caPem: string;
  close(): Promise<void>;
}

/** Starts the server; `handler` answers every request. The certificate names 127.0.0.1 and localhost. */
export async function startSelfSignedHttps(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<SelfSignedHttps> {
  const dir = mkdtempSync(join(tmpdir(), 'cimd-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'ignore' },
    );
    const caPem = readFileSync(join(dir, 'cert.pem'), 'utf8');
    const server: Server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: caPem }, handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      origin: `https://127.0.0.1:${port}`,
      caPem,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
