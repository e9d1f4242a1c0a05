import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { JSONRPC_VERSION } from '@mcp-platform/protocol-mcp';
import type { LazyResponse } from './lazy-response';
import { endWhenExpired } from './stream-expiry';

interface SessionStream {
  response: LazyResponse;
  tenant: string;
  server: string;
  keepAlive: NodeJS.Timeout;
  expiry?: NodeJS.Timeout;
}

const KEEP_ALIVE_MS = 25_000;

/**
 * The legacy GET streams open on this replica, one per session (S-86..S-88): where notifications
 * unrelated to a request go, e.g. `notifications/tools/list_changed`.
 */
@Injectable()
export class SessionStreams implements OnModuleDestroy {
  private readonly streams = new Map<string, SessionStream>();

  /**
   * False when the session already has a GET stream on this replica. With `endsAt` (the access token's
   * expiry), the stream closes then; the client opens it again with a fresh token.
   */
  attach(sessionId: string, tenant: string, server: string, response: LazyResponse, endsAt?: number): boolean {
    if (this.streams.get(sessionId)?.response.open) return false;
    response.openStream();
    const keepAlive = setInterval(() => response.keepAlive(), KEEP_ALIVE_MS);
    keepAlive.unref();
    const expiry = endsAt === undefined ? undefined : endWhenExpired(endsAt, () => this.close(sessionId));
    this.streams.set(sessionId, { response, tenant, server, keepAlive, ...(expiry ? { expiry } : {}) });
    response.onClientGone(() => this.detach(sessionId, response));
    return true;
  }

  /**
   * Tells every session of the named servers (none named: all of the tenant's) that one of their
   * lists changed: `notifications/<list>/list_changed` (S-207, S-223), one stream each (S-88).
   */
  notifyListChanged(tenant: string, servers: readonly string[], list: 'tools' | 'resources' | 'prompts'): number {
    let sent = 0;
    for (const stream of this.streams.values()) {
      if (stream.tenant !== tenant || (servers.length > 0 && !servers.includes(stream.server))) continue;
      if (stream.response.notify({ jsonrpc: JSONRPC_VERSION, method: `notifications/${list}/list_changed` })) sent++;
    }
    return sent;
  }

  /**
   * Sends `notifications/resources/updated { uri }` (S-206) on the GET stream of every session of the
   * tenant held here for which `subscribed(sessionId)` says it asked for `uri`; one stream each (S-88).
   */
  notifyResourceUpdated(tenant: string, uri: string, subscribed: (sessionId: string) => boolean): number {
    let sent = 0;
    for (const [sessionId, stream] of this.streams) {
      if (stream.tenant !== tenant || !subscribed(sessionId)) continue;
      if (stream.response.notify({ jsonrpc: JSONRPC_VERSION, method: 'notifications/resources/updated', params: { uri } })) sent++;
    }
    return sent;
  }

  /** Writes one message on the session's GET stream, if this replica holds it; false otherwise. */
  send(sessionId: string, message: Record<string, unknown>): boolean {
    return this.streams.get(sessionId)?.response.notify(message) ?? false;
  }

  /** Ends the session's GET stream (the session ended, S-84). */
  close(sessionId: string): void {
    const stream = this.streams.get(sessionId);
    if (!stream) return;
    stream.response.close();
    this.detach(sessionId, stream.response);
  }

  onModuleDestroy(): void {
    for (const sessionId of [...this.streams.keys()]) this.close(sessionId);
  }

  private detach(sessionId: string, response: LazyResponse): void {
    const stream = this.streams.get(sessionId);
    if (!stream || stream.response !== response) return;
    clearInterval(stream.keepAlive);
    clearTimeout(stream.expiry);
    this.streams.delete(sessionId);
  }
}
