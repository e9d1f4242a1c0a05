import { Injectable, Logger } from '@nestjs/common';
import { authorizationServer, type EventPayload, taskScheduler } from '@mcp-platform/protocol-contracts';
import { JSONRPC_VERSION, legacyCodec, modernCodec } from '@mcp-platform/protocol-mcp';
import { AccessTokenVerifier } from '@mcp-platform/shared-auth';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { TokenRevocations } from './auth/token-revocations.service';
import { OpenConnections } from './edge/open-connections.registry';
import { LegacyEndpoint } from './legacy/legacy-endpoint.service';
import { SessionStore } from './sessions/session.store';
import { SessionStreams } from './streams/session-streams.registry';
import { ListenStreams, type TaskOwner } from './subscriptions/listen-streams.registry';
import { neutralTask } from './tasks/task-methods.service';
import { VirtualServerCache } from './virtual-servers/virtual-server.cache';

type TaskStatusChange = EventPayload<typeof taskScheduler.taskStatusChanged>;
type TenantStateChange = EventPayload<typeof authorizationServer.tenantStateChanged>;

/** What a broker replica does when the catalog changes, a session ends anywhere, a tenant or user is revoked, or the signing keys rotate. */
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
    private readonly bus: MessageBus,
    private readonly revocations: TokenRevocations,
    private readonly connections: OpenConnections,
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
   * A task changed status. Legacy: `notifications/tasks/status` with the task (S-284, without
   * `related-task`) on the GET stream of the session that created it, if this replica holds it. Modern:
   * `notifications/tasks` on the listen streams here of its owner that asked for it (S-304). Clients must
   * not depend on either (they poll).
   */
  async taskStatusChanged(change: TaskStatusChange): Promise<void> {
    if (change.sessionId !== undefined) {
      this.streams.send(change.sessionId, {
        jsonrpc: JSONRPC_VERSION,
        method: 'notifications/tasks/status',
        params: legacyCodec.encodeTaskStatus(neutralTask({ task: change.task })),
      });
    }
    if (change.era === 'modern') await this.notifyTaskListeners(change);
  }

  /**
   * Each notification carries the task as `tasks/get` would show it (S-304): a `completed` or `failed`
   * one with its result or error, which the event lacks, so those are read from the scheduler, as one
   * of the listeners (each is the owner). A failed read drops the push: the client still polls.
   */
  private async notifyTaskListeners(change: TaskStatusChange): Promise<void> {
    const { task } = change;
    const owner: TaskOwner = { ...change.owner, tenant: change.tenant };
    const reader = this.listens.taskListener(owner, task.taskId);
    if (reader === undefined) return;
    let state: taskScheduler.TaskState = { task };
    if (task.status === 'completed' || task.status === 'failed') {
      try {
        state = await this.bus.request(taskScheduler.getTask, { taskId: task.taskId }, { context: { principal: reader } });
      } catch (error) {
        this.logger.warn(`no notifications/tasks for a ${task.status} task of ${change.tenant}: reading it failed: ${(error as Error).message}`);
        return;
      }
    }
    const sent = this.listens.notifyTaskStatus(owner, task.taskId, modernCodec.encodeTaskStatus(neutralTask(state)));
    if (sent) this.logger.debug(`told ${sent} listener(s) of ${change.tenant} that a task is ${state.task.status}`);
  }

  /**
   * A tenant was enabled, disabled or deleted. Disabled or deleted: from now on its servers refuse
   * every caller here, what this replica holds open for it is cut (every stream), and its legacy
   * sessions end (each replica ends those it knows; ending one twice is harmless).
   */
  async tenantStateChanged(change: TenantStateChange): Promise<void> {
    this.servers.tenantChanged(change.tenant, change.state);
    if (change.state === 'enabled') return;
    this.connections.closeTenant(change.tenant);
    const sessionIds = this.sessions.idsOfTenant(change.tenant);
    for (const sessionId of sessionIds) {
      this.legacy.onSessionClosed(sessionId);
      await this.sessions
        .delete(sessionId)
        .catch((error: unknown) => this.logger.warn(`could not end a session of ${change.tenant}: ${(error as Error).message}`));
    }
    this.logger.log(`tenant ${change.tenant} ${change.state}: its callers are refused, ${sessionIds.length} legacy session(s) ended`);
  }

  /** Tokens of a tenant or subject were revoked: refused from now on, and the subject's open connections cut. */
  accessRevoked(revocation: authorizationServer.Revocation): void {
    this.revocations.add(revocation);
    if (revocation.kind === 'subject') this.connections.closeSubject(revocation.id);
    else if (revocation.tenant !== undefined) this.connections.closeTenant(revocation.tenant);
  }

  /** The authorization server rotated its keys: the next token is verified against a fresh key set. */
  signingKeysRotated(kids: readonly string[]): void {
    this.verifier.invalidateKeys();
    this.logger.log(`signing keys rotated (${kids.length} published); the key set will be fetched again`);
  }
}
