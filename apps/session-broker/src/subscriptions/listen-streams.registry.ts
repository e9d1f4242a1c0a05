import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { EventPayload, Principal, taskScheduler } from '@mcp-platform/protocol-contracts';
import { JSONRPC_VERSION, ModernMetaKey } from '@mcp-platform/protocol-mcp';
import { ReportThrottle } from '@mcp-platform/shared-observability';
import { DEFAULT_LISTEN_STREAMS_PER_CALLER } from '../session-broker.options';
import type { LazyResponse } from '../streams/lazy-response';
import { endWhenExpired, keepAliveEvery } from '../streams/stream-expiry';
import { acknowledgedFilter, type HonouredFilter, type ListName } from './subscription-filter';

/** One open `subscriptions/listen` on this replica. */
export interface ListenStream {
  /** The listen request's JSON-RPC id: the subscription id on everything sent on the stream (S-311). */
  id: string | number;
  tenant: string;
  server: string;
  /** Who listens: only their own tasks' status changes reach them (S-289, S-304). */
  principal: Principal;
  /** Who the stream counts against for the per-caller cap (`callerOf`: a principal, or an anonymous caller's network). */
  caller: string;
  filter: HonouredFilter;
  response: LazyResponse;
  /** When the subscription ends on its own (the access token's expiry), in epoch milliseconds. */
  endsAt?: number;
  /** The `subscriptions/listen` result that ends the subscription gracefully (S-313). */
  completion: () => Record<string, unknown>;
}

/** Whose a task is, as its status event names it, with the event's tenant (S-289). */
export type TaskOwner = EventPayload<typeof taskScheduler.taskStatusChanged>['owner'] & { tenant: string };

/**
 * Whether `principal` may hear of a task of `owner` (S-289): the same tenant, subject and OAuth client.
 * Never an anonymous owner's, nor an anonymous listener: anonymous modern callers share one identity,
 * so nothing tells one's tasks from another's.
 */
export function listensAsOwner(principal: Principal, owner: TaskOwner): boolean {
  return (
    !owner.anonymous &&
    !principal.anonymous &&
    principal.tenant === owner.tenant &&
    principal.subject === owner.subject &&
    principal.clientId === owner.clientId
  );
}

interface HeldStream extends ListenStream {
  keepAlive: NodeJS.Timeout;
  expiry?: NodeJS.Timeout;
}

/**
 * The modern era's `subscriptions/listen` streams held by this replica (S-308..S-315). A stream lives
 * as long as its request: the client closing it, this replica shutting down, its token expiring, or
 * its caller opening more than `perCaller` of them (the oldest ends) ends it; nothing of it is stored
 * elsewhere (S-315). Change events reach every replica, and each serves only its own streams, so each
 * listener hears of a change once, whichever replica took it (§3.1.6, §3.1.7).
 *
 * The cap is per replica, like the connections it bounds: an anonymous stream never ends on its own,
 * and one address holding thousands (about 15 KB each, with their sockets and keep-alive timers)
 * would exhaust a replica's memory or file descriptors for everyone. Like the legacy session cap, it
 * ends the caller's own oldest stream rather than refusing the new one, so a client whose old streams
 * died unseen is not locked out.
 */
@Injectable()
export class ListenStreams implements OnModuleDestroy {
  private readonly logger = new Logger(ListenStreams.name);
  /** The streams by tenant: every event names one tenant. */
  private readonly byTenant = new Map<string, Set<HeldStream>>();
  /** The streams by caller, oldest first (a Set keeps insertion order). */
  private readonly byCaller = new Map<string, Set<HeldStream>>();
  private readonly reports = new ReportThrottle();
  /** Told when a stream that subscribed to resources opens or ends. */
  private resourceSubscriptionsChanged: (() => void) | undefined;

  constructor(private readonly perCaller: number = DEFAULT_LISTEN_STREAMS_PER_CALLER) {}

  /** Opens the stream and sends the acknowledgement before anything else (S-310); at its caller's cap, their oldest stream ends. */
  open(opened: ListenStream): void {
    // An anonymous listener never hears of a task (see `listensAsOwner`), so its acknowledgement has no task ids (S-310).
    const stream =
      opened.principal.anonymous && opened.filter.taskIds.size > 0 ? { ...opened, filter: { ...opened.filter, taskIds: new Set<string>() } } : opened;
    const { response } = stream;
    response.openStream();
    response.notify(this.tagged(stream, 'notifications/subscriptions/acknowledged', { notifications: acknowledgedFilter(stream.filter) }));
    const keepAlive = keepAliveEvery(response);
    const held: HeldStream = { ...stream, keepAlive };
    if (stream.endsAt !== undefined) held.expiry = endWhenExpired(stream.endsAt, () => this.end(held));
    let streams = this.byTenant.get(stream.tenant);
    if (!streams) this.byTenant.set(stream.tenant, (streams = new Set()));
    streams.add(held);
    let ofCaller = this.byCaller.get(stream.caller);
    if (!ofCaller) this.byCaller.set(stream.caller, (ofCaller = new Set()));
    ofCaller.add(held);
    response.onClientGone(() => this.release(held));
    if (held.filter.resourceUris.size > 0) this.resourceSubscriptionsChanged?.();
    this.endBeyondCap(ofCaller, stream);
  }

  /** Calls `listener` whenever a stream subscribed to resources opens or ends (one listener). */
  onResourceSubscriptionsChanged(listener: () => void): void {
    this.resourceSubscriptionsChanged = listener;
  }

  /** Every URI a stream here subscribed to, with its tenant (a URI of a tenant once). */
  subscribedResources(): Array<{ tenant: string; uri: string }> {
    const seen = new Map<string, { tenant: string; uri: string }>();
    for (const [tenant, streams] of this.byTenant) {
      for (const stream of streams) for (const uri of stream.filter.resourceUris) seen.set(JSON.stringify([tenant, uri]), { tenant, uri });
    }
    return [...seen.values()];
  }

  /** Ends the caller's oldest streams while it holds more than its cap, and says so once a minute per caller. */
  private endBeyondCap(ofCaller: Set<HeldStream>, opened: ListenStream): void {
    if (ofCaller.size <= this.perCaller) return;
    for (const oldest of ofCaller) {
      if (ofCaller.size <= this.perCaller) break;
      this.end(oldest);
    }
    const since = this.reports.note(opened.caller);
    if (since !== undefined) {
      this.logger.warn(
        `a caller of tenant ${opened.tenant} holds its cap of ${this.perCaller} listen streams on this replica: its oldest ones end ` +
          `(${since} time(s) since the last report; caller ${opened.caller.slice(0, 200)})`,
      );
    }
  }

  /** How many listen streams this replica holds. */
  get size(): number {
    let size = 0;
    for (const streams of this.byTenant.values()) size += streams.size;
    return size;
  }

  /**
   * `notifications/<list>/list_changed` (S-191, S-207, S-223) on every stream of the named servers
   * (none named: all of the tenant's) whose filter asked for that list (S-309).
   */
  notifyListChanged(tenant: string, servers: readonly string[], list: ListName): number {
    let sent = 0;
    for (const stream of this.byTenant.get(tenant) ?? []) {
      if ((servers.length > 0 && !servers.includes(stream.server)) || !stream.filter.lists.has(list)) continue;
      if (stream.response.notify(this.tagged(stream, `notifications/${list}/list_changed`))) sent++;
    }
    return sent;
  }

  /** `notifications/resources/updated { uri }` (S-206) on every stream of the tenant that subscribed to `uri`. */
  notifyResourceUpdated(tenant: string, uri: string): number {
    let sent = 0;
    for (const stream of this.byTenant.get(tenant) ?? []) {
      if (!stream.filter.resourceUris.has(uri)) continue;
      if (stream.response.notify(this.tagged(stream, 'notifications/resources/updated', { uri }))) sent++;
    }
    return sent;
  }

  /**
   * The principal of a stream here that asked for `taskId` and may hear of it (S-289), to read the
   * task as; `undefined` when no stream here would get its `notifications/tasks`.
   */
  taskListener(owner: TaskOwner, taskId: string): Principal | undefined {
    for (const stream of this.byTenant.get(owner.tenant) ?? []) {
      if (this.hearsTask(stream, owner, taskId)) return stream.principal;
    }
    return undefined;
  }

  /**
   * `notifications/tasks` (S-304) with `task` (its `DetailedTask`, as `tasks/get` shows it) on every
   * stream of the tenant that asked for its id (S-309) and whose principal owns it (S-289).
   */
  notifyTaskStatus(owner: TaskOwner, taskId: string, task: Record<string, unknown>): number {
    let sent = 0;
    for (const stream of this.byTenant.get(owner.tenant) ?? []) {
      if (!this.hearsTask(stream, owner, taskId)) continue;
      if (stream.response.notify(this.tagged(stream, 'notifications/tasks', task))) sent++;
    }
    return sent;
  }

  /** Shutdown ends every subscription with its result, so clients know it was deliberate (S-313). */
  onModuleDestroy(): void {
    const streams = [...this.byTenant.values()].flatMap((held) => [...held]);
    if (streams.length > 0) this.logger.log(`ending ${streams.length} listen subscription(s) for shutdown`);
    for (const stream of streams) this.end(stream);
  }

  /** Ends a subscription deliberately: its `subscriptions/listen` result, then the stream closes (S-313). */
  private end(stream: HeldStream): void {
    stream.response.respond({ jsonrpc: JSONRPC_VERSION, id: stream.id, result: stream.completion() });
    this.release(stream);
  }

  /** A notification carrying the subscription id in `_meta` (S-311). */
  private tagged(stream: ListenStream, method: string, params: Record<string, unknown> = {}): Record<string, unknown> {
    return { jsonrpc: JSONRPC_VERSION, method, params: { ...params, _meta: { [ModernMetaKey.SubscriptionId]: stream.id } } };
  }

  private hearsTask(stream: ListenStream, owner: TaskOwner, taskId: string): boolean {
    return stream.filter.taskIds.has(taskId) && listensAsOwner(stream.principal, owner);
  }

  private release(stream: HeldStream): void {
    clearInterval(stream.keepAlive);
    clearTimeout(stream.expiry);
    const streams = this.byTenant.get(stream.tenant);
    const released = streams?.delete(stream) ?? false;
    if (streams?.size === 0) this.byTenant.delete(stream.tenant);
    const ofCaller = this.byCaller.get(stream.caller);
    ofCaller?.delete(stream);
    if (ofCaller?.size === 0) this.byCaller.delete(stream.caller);
    if (released && stream.filter.resourceUris.size > 0) this.resourceSubscriptionsChanged?.();
  }
}
