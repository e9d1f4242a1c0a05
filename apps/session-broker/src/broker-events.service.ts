import { Injectable, Logger } from '@nestjs/common';
import type { taskScheduler } from '@mcp-platform/protocol-contracts';
import { JSONRPC_VERSION } from '@mcp-platform/protocol-mcp';
import { AccessTokenVerifier } from '@mcp-platform/shared-auth';
import { LegacyEndpoint } from './legacy/legacy-endpoint.service';
import { SessionStore } from './legacy/session.store';
import { SessionStreams } from './streams/session-streams.registry';
import { ListenStreams } from './subscriptions/listen-streams.registry';
import { legacyTask } from './tasks/task-methods.service';
import { VirtualServerCache } from './virtual-servers/virtual-server.cache';

/** What a broker replica does when the catalog changes, a session ends anywhere or the signing keys rotate. */
@Injectable()
export class BrokerEvents {
  private readonly logger = new Logger(BrokerEvents.name);

  constructor(
    private readonly servers: VirtualServerCache,
    private readonly streams: SessionStreams,
    private readonly listens: ListenStreams,
    private readonly legacy: LegacyEndpoint,
    private readonly sessions: SessionStore,
    private readonly verifier: AccessTokenVerifier,
  ) {}

  /**
   * Forget the cached servers and tell their clients (§3.1.6): legacy sessions on their GET streams,
   * modern listeners that asked for `toolsListChanged` (S-191).
   */
  catalogChanged(tenant: string, servers: readonly string[]): void {
    // No server named: none of their tool lists changed (unlike the store's lists, where none means all).
    if (servers.length === 0) return;
    this.servers.invalidate(tenant, servers);
    this.listChanged(tenant, servers, 'tools');
  }

  /** A resource or prompt list of the tenant changed: tell the clients that hear about it (S-207, S-223). */
  resourceListsChanged(tenant: string, servers: readonly string[], lists: ReadonlyArray<'resources' | 'prompts'>): void {
    for (const list of lists) this.listChanged(tenant, servers, list);
  }

  /**
   * A resource of the tenant changed: tell the legacy sessions subscribed to its URI, on the GET
   * streams this replica holds (S-206). Every replica gets the event and serves only its own streams,
   * reading the subscriptions from its mirror of the shared session store, so each subscriber hears it
   * once, whichever replica took the subscribe. The event names no virtual server: every subscribed
   * session of the tenant is told, which is right because a session only ever hears about URIs it
   * subscribed to itself.
   */
  resourceUpdated(tenant: string, uri: string): void {
    const sessions = this.streams.notifyResourceUpdated(tenant, uri, (sessionId) => this.sessions.isSubscribed(sessionId, uri));
    const listeners = this.listens.notifyResourceUpdated(tenant, uri);
    if (sessions + listeners) this.logger.debug(`told ${sessions} session(s) and ${listeners} listener(s) of ${tenant} that a subscribed resource changed`);
  }

  private listChanged(tenant: string, servers: readonly string[], list: 'tools' | 'resources' | 'prompts'): void {
    const sessions = this.streams.notifyListChanged(tenant, servers, list);
    const listeners = this.listens.notifyListChanged(tenant, servers, list);
    if (sessions + listeners) this.logger.debug(`told ${sessions} session(s) and ${listeners} listener(s) of ${tenant} that their ${list} changed`);
  }

  /** Close this replica's streams and calls of an ended session (§3.2.2). */
  sessionClosed(sessionId: string): void {
    this.legacy.onSessionClosed(sessionId);
  }

  /** A message for a session's GET stream: written if this replica holds it (S-88). */
  sessionMessage(sessionId: string, message: Record<string, unknown>): void {
    if (this.streams.send(sessionId, message)) this.logger.debug(`sent a message on the GET stream of session ${sessionId.slice(0, 8)}…`);
  }

  /**
   * A task changed status: `notifications/tasks/status` with the task (S-284, without `related-task`) on
   * the GET stream of the legacy session that created it, if this replica holds it. Clients must not
   * depend on it (they poll); the modern era has no such push here.
   */
  taskStatusChanged(task: taskScheduler.TaskView, sessionId: string | undefined): void {
    if (sessionId === undefined) return;
    this.streams.send(sessionId, { jsonrpc: JSONRPC_VERSION, method: 'notifications/tasks/status', params: legacyTask(task) });
  }

  /** The authorization server rotated its keys: the next token is verified against a fresh key set. */
  signingKeysRotated(kids: readonly string[]): void {
    this.verifier.invalidateKeys();
    this.logger.log(`signing keys rotated (${kids.length} published); the key set will be fetched again`);
  }
}
