import type { OutgoingHttpHeaders } from 'node:http';
import type { ResponseTarget } from '../src/streams/lazy-response';

/** An HTTP response in memory: what was written, and a way to drop the connection as a client would. */
export class FakeTarget implements ResponseTarget {
  status?: number;
  headers?: OutgoingHttpHeaders;
  chunks: string[] = [];
  headersSent = false;
  writableEnded = false;
  private closeListener: (() => void) | undefined;

  writeHead(status: number, headers: OutgoingHttpHeaders): this {
    this.status = status;
    this.headers = headers;
    this.headersSent = true;
    return this;
  }
  write(chunk: string): boolean {
    this.chunks.push(chunk);
    return true;
  }
  end(chunk?: string): this {
    if (chunk) this.chunks.push(chunk);
    this.writableEnded = true;
    this.closeListener?.();
    return this;
  }
  flushHeaders(): void {}
  once(_event: 'close', listener: () => void): this {
    this.closeListener = listener;
    return this;
  }
  dropConnection(): void {
    this.closeListener?.();
  }
}
