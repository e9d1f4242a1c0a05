import { createServer } from 'node:net';

/**
 * A TCP port that was free on `host` a moment ago (the OS picks it). Another process may take it
 * before the caller binds; prefer binding to port 0 directly where the code under test allows it.
 */
export async function getFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('the OS gave no port'))));
    });
  });
}
