import { Injectable, Logger } from '@nestjs/common';

/** What the registry needs of an HTTP response: to hear it close, and to end it. */
export interface ClosableResponse {
  once(event: 'close', listener: () => void): unknown;
  end(): unknown;
  /** Present on Node's `ServerResponse`: ends the connection at once. */
  destroy?: () => unknown;
}

interface OpenConnection {
  tenant: string;
  subject: string;
  response: ClosableResponse;
}

/**
 * The authorized MCP requests this replica is answering right now, by tenant and subject: every kind
 * of open stream (legacy GET and call streams, `subscriptions/listen`, `tasks/result`) is one of them.
 * When a tenant is disabled or deleted, or a subject's tokens are revoked, they are cut at once: the
 * client sees its stream end and cannot open another (the edge refuses it), and what the registries
 * hold for the stream is released as for a client gone.
 */
@Injectable()
export class OpenConnections {
  private readonly logger = new Logger(OpenConnections.name);
  private readonly open = new Set<OpenConnection>();

  /** Remembers the response until it closes. */
  track(tenant: string, subject: string, response: ClosableResponse): void {
    const connection: OpenConnection = { tenant, subject, response };
    this.open.add(connection);
    response.once('close', () => this.open.delete(connection));
  }

  /** Cuts every connection of the tenant; answers how many. */
  closeTenant(tenant: string): number {
    return this.cut((connection) => connection.tenant === tenant, `tenant ${tenant}`);
  }

  /** Cuts every connection of the subject (a user or a machine client); answers how many. */
  closeSubject(subject: string): number {
    return this.cut((connection) => connection.subject === subject, 'a revoked subject');
  }

  /** How many connections are open. */
  get size(): number {
    return this.open.size;
  }

  private cut(matches: (connection: OpenConnection) => boolean, whose: string): number {
    let cut = 0;
    for (const connection of [...this.open]) {
      if (!matches(connection)) continue;
      this.open.delete(connection);
      // The socket goes at once, whatever the response was writing: the client must not keep a stream.
      if (connection.response.destroy) connection.response.destroy();
      else connection.response.end();
      cut++;
    }
    if (cut > 0) this.logger.log(`closed ${cut} open connection(s) of ${whose}`);
    return cut;
  }
}
