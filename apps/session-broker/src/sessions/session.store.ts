import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { z } from 'zod';
import { LoggingLevelSchema } from '@mcp-platform/protocol-mcp';
import type { KeyValueFactory, KeyValueStore } from '@mcp-platform/shared-messaging';
import type { StoredClientCapabilities, StoredClientInfo } from './client-description';

/** What a legacy session remembers between requests (§3.2.1), shared by every broker replica. */
export const LegacySessionSchema = z.object({
  tenant: z.string(),
  server: z.string(),
  /** The principal's subject at `initialize` (`anonymous` on public servers); only it may use the session (S-97). */
  subject: z.string(),
  /** The OAuth client at `initialize`, when the caller had a token. */
  clientId: z.string().optional(),
  /** Whether it was opened without a token, so no token's `sub` can ever pass for the anonymous caller. */
  anonymous: z.boolean(),
  /**
   * An anonymous caller's network (an IPv4 address, an IPv6 /64; see `clientNetwork`): anonymous callers
   * are told apart by it alone, so it is who the session counts against (`callerOf`). Absent with a token.
   */
  clientAddress: z.string().max(64).optional(),
  /** The version negotiated in `initialize`. */
  protocolVersion: z.string(),
  /**
   * What the client declared, as far as the platform reads it (`storedClientCapabilities`). Read
   * leniently: a session written before the projection (a rolling upgrade) still works until it expires.
   */
  clientCapabilities: z.record(z.string(), z.unknown()),
  /** Who the client says it is (`storedClientInfo`: name, version, title). */
  clientInfo: z.looseObject({ name: z.string(), version: z.string() }),
  /** Set by `logging/setLevel`; absent means no `notifications/message` (S-233). */
  logLevel: LoggingLevelSchema.optional(),
  /** True once `notifications/initialized` arrived (S-46). */
  initialized: z.boolean(),
  /**
   * The URIs this session asked about with `resources/subscribe` (S-205, S-206), in the session so the
   * replica holding its GET stream knows them whichever replica took the subscribe. Absent means none.
   */
  subscriptions: z.array(z.string()).optional(),
  createdAt: z.number(),
  /** Last write; the bucket expires entries this long after it, so busy sessions are rewritten now and then. */
  touchedAt: z.number(),
});
export type LegacySession = z.infer<typeof LegacySessionSchema>;

/** What {@link SessionStore.update} may change in a session. */
export type SessionChange = Partial<Pick<LegacySession, 'logLevel' | 'initialized' | 'subscriptions'>>;

/** What {@link SessionStore.create} is given: the session minus what the store sets itself. */
export type NewSession = Omit<LegacySession, 'createdAt' | 'touchedAt' | 'initialized'> & {
  clientCapabilities: StoredClientCapabilities;
  clientInfo: StoredClientInfo;
};

/**
 * Who a session counts against for the session caps: the principal (tenant, subject), or for an
 * anonymous caller its network, within the tenant (anonymous callers share one subject). Not the OAuth
 * client: anyone registers clients for free (DCR, a Client ID Metadata Document of their own), so a cap
 * per user and client would let one user hold any number of sessions, up to the tenant's cap.
 */
export function callerOf(session: Pick<LegacySession, 'tenant' | 'subject' | 'anonymous' | 'clientAddress'>): string {
  return session.anonymous
    ? JSON.stringify(['anonymous', session.tenant, session.clientAddress ?? 'unknown'])
    : JSON.stringify(['principal', session.tenant, session.subject]);
}

/** A session as the caps see it: its id and when it was last used. */
export interface SessionUse {
  id: string;
  touchedAt: number;
}

/** How many sessions the mirror holds: of one caller, of one tenant, and in all. */
export interface SessionCount {
  caller: number;
  tenant: number;
  total: number;
}

/**
 * How many times an update computes and compare-and-sets before giving up: each retry means another
 * write to the same session landed first, which takes more than a few simultaneous requests.
 */
const UPDATE_ATTEMPTS = 8;

/** The longest pause after a lost compare-and-set grows by this much with each attempt (jitter). */
const CONFLICT_PAUSE_MS = 5;

/** The shape session ids take here; anything else is unknown without a look-up. */
const SESSION_ID = /^[A-Za-z0-9_-]{16,128}$/;

export const SESSION_BUCKET = 'mcp-sessions';

interface MirrorEntry {
  session: LegacySession;
  /** The bucket revision this copy comes from: the watch never replaces it with an older one. */
  revision: number;
  expiresAt: number;
}

/** A session in use is rewritten (its `touchedAt` moved) at most this often, so the caps can tell which was used least recently. */
export const TOUCH_INTERVAL_MS = 60_000;

export interface SessionStoreOptions {
  ttlMs: number;
  /**
   * The most sessions this replica's mirror holds (default: no limit). Beyond it, sessions the watch
   * announces are not mirrored (a request for one reads the bucket): the mirror stays bounded even when
   * the bucket holds more than the caps let in (replicas racing, or configured differently).
   */
  maxMirrored?: number;
  now?: () => number;
  newId?: () => string;
}

/**
 * Legacy session state in a replicated KV bucket (NATS JetStream KV in distributed mode), so any
 * replica serves any session without stickiness (§3.2.1). A local mirror, kept current by the
 * bucket's watch and filled by a direct read on a miss, keeps the KV round trip off the hot path.
 * Every write is a compare-and-set on the revision the change was computed from, so changes made at
 * the same instant on any replicas all land; the mirror only ever moves to a newer revision, so a
 * late echo of an older write never undoes a newer one.
 */
export class SessionStore {
  private readonly logger = new Logger(SessionStore.name);
  private readonly mirror = new Map<string, MirrorEntry>();
  /** The mirror's sessions by caller (`callerOf`), and their number by tenant: the census the caps read. */
  private readonly byCaller = new Map<string, Set<string>>();
  private readonly perTenant = new Map<string, number>();
  private readonly maxMirrored: number;
  /** A session in use is rewritten once this long after its last write. */
  private readonly touchIntervalMs: number;
  /** The end of the latest update queued per session on this replica. */
  private readonly writing = new Map<string, Promise<void>>();
  private readonly now: () => number;
  private readonly newId: () => string;
  private watcher: { stop(): void } | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  /** Told when a mirrored session's subscriptions change, or a session holding some leaves the mirror. */
  private subscriptionsChanged: (() => void) | undefined;

  private constructor(
    private readonly bucket: KeyValueStore,
    private readonly options: SessionStoreOptions,
  ) {
    this.now = options.now ?? Date.now;
    // spec S-91/S-97: 192 bits from a secure RNG, visible ASCII only (base64url).
    this.newId = options.newId ?? (() => randomBytes(24).toString('base64url'));
    this.maxMirrored = options.maxMirrored ?? Number.POSITIVE_INFINITY;
    this.touchIntervalMs = Math.min(TOUCH_INTERVAL_MS, options.ttlMs / 2);
  }

  static async open(keyValue: KeyValueFactory, options: SessionStoreOptions): Promise<SessionStore> {
    const bucket = await keyValue.open(SESSION_BUCKET, { ttlMs: options.ttlMs });
    const store = new SessionStore(bucket, options);
    store.watcher = await bucket.watch((change) => store.onChange(change.key, change.value, change.revision));
    store.sweeper = setInterval(() => store.sweep(), Math.min(options.ttlMs, 60_000));
    store.sweeper.unref();
    return store;
  }

  /** Creates a session and returns its new id. */
  async create(fields: NewSession): Promise<{ id: string; session: LegacySession }> {
    const now = this.now();
    const session: LegacySession = { ...fields, initialized: false, createdAt: now, touchedAt: now };
    for (let attempt = 0; attempt < 3; attempt++) {
      const id = this.newId();
      const revision = await this.bucket.create(id, JSON.stringify(session));
      if (revision !== undefined) {
        this.remember(id, session, revision);
        return { id, session };
      }
    }
    throw new Error('could not mint a unique session id');
  }

  /** The live session with this id, or `undefined` when it is unknown, ended or expired (S-93). */
  async get(id: string): Promise<LegacySession | undefined> {
    if (!SESSION_ID.test(id)) return undefined;
    const entry = this.mirror.get(id);
    const now = this.now();
    if (entry && entry.expiresAt > now) {
      // Rewritten now and then while in use: the bucket keeps it (its TTL counts from the last write), and
      // `touchedAt` tells the caps which of a caller's sessions was used least recently.
      if (now - entry.session.touchedAt > this.touchIntervalMs) {
        this.update(id, {}).catch((error: unknown) => this.logger.warn(`could not refresh session ${id.slice(0, 8)}…: ${(error as Error).message}`));
      }
      return entry.session;
    }
    return (await this.load(id))?.session;
  }

  /**
   * Merges fields into a session; a no-op (`undefined`) for an unknown one. Given a function, it
   * computes the fields from the freshest copy this replica has; `undefined` from it means there is
   * nothing to write. The write is a compare-and-set on that copy's revision: when another write
   * landed first (on any replica), the session is read again and the change computed again, so no
   * change is lost. Updates of one session on this replica run one after the other. Rejects when the
   * bucket fails or the session keeps changing under it.
   */
  update(id: string, fields: SessionChange | ((current: LegacySession) => SessionChange | undefined)): Promise<LegacySession | undefined> {
    // One write per session at a time on this replica: they would only overtake each other.
    const previous = this.writing.get(id) ?? Promise.resolve();
    const done = previous.then(() => this.compareAndSet(id, fields));
    const settled = done.then(
      () => undefined,
      () => undefined,
    );
    this.writing.set(id, settled);
    void settled.then(() => {
      if (this.writing.get(id) === settled) this.writing.delete(id);
    });
    return done;
  }

  private async compareAndSet(id: string, fields: SessionChange | ((current: LegacySession) => SessionChange | undefined)): Promise<LegacySession | undefined> {
    let entry = this.liveEntry(id) ?? (await this.load(id));
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS && entry; attempt++) {
      const change = typeof fields === 'function' ? fields(entry.session) : fields;
      if (change === undefined) return entry.session;
      const next: LegacySession = { ...entry.session, ...change, touchedAt: this.now() };
      const revision = await this.bucket.update(id, JSON.stringify(next), entry.revision);
      if (revision !== undefined) {
        this.remember(id, next, revision);
        return next;
      }
      // Someone wrote first (or the mirror lagged behind the bucket): start again from the bucket, after
      // a short random pause, so two replicas writing one session do not keep colliding in lockstep.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * CONFLICT_PAUSE_MS * (attempt + 1)));
      entry = await this.load(id);
    }
    if (!entry) return undefined;
    throw new Error(`session ${id.slice(0, 8)}… kept changing during ${UPDATE_ATTEMPTS} attempts to update it`);
  }

  /**
   * Whether the session subscribed to `uri`, from this replica's mirror only (no bucket read): it is
   * asked for every session with a GET stream here on every resource change, and a session whose
   * stream is open here is in the mirror, kept current by the watch.
   */
  isSubscribed(id: string, uri: string): boolean {
    return this.liveEntry(id)?.session.subscriptions?.includes(uri) ?? false;
  }

  /** Ends a session everywhere: every replica's watch drops it from its mirror. */
  async delete(id: string): Promise<void> {
    this.drop(id);
    await this.bucket.delete(id);
  }

  /** The ids of the tenant's sessions this replica knows of (its mirror), for ending them with the tenant. */
  idsOfTenant(tenant: string): string[] {
    return [...this.mirror].filter(([, entry]) => entry.session.tenant === tenant).map(([id]) => id);
  }

  /** Drops a session from this replica's mirror (a `sessionClosed` event arrived before the watch did). */
  forget(id: string): void {
    this.drop(id);
  }

  /**
   * The live sessions of `caller` and of `tenant`, and all of them, as this replica's mirror knows them:
   * every replica's, once the watch delivered them (cluster-wide, a few milliseconds late).
   */
  count(tenant: string, caller: string): SessionCount {
    return { caller: this.byCaller.get(caller)?.size ?? 0, tenant: this.perTenant.get(tenant) ?? 0, total: this.mirror.size };
  }

  /** The live sessions of `caller`, least recently used first. */
  sessionsOf(caller: string): SessionUse[] {
    const uses: SessionUse[] = [];
    for (const id of this.byCaller.get(caller) ?? []) {
      const entry = this.liveEntry(id);
      if (entry) uses.push({ id, touchedAt: entry.session.touchedAt });
    }
    return uses.sort((a, b) => a.touchedAt - b.touchedAt);
  }

  /** Calls `listener` whenever the subscriptions the mirror holds may have changed (one listener). */
  onSubscriptionsChanged(listener: () => void): void {
    this.subscriptionsChanged = listener;
  }

  /** Every URI a live session of the mirror subscribed to, with its tenant (a URI of a tenant once). */
  subscribedResources(): Array<{ tenant: string; uri: string }> {
    const seen = new Map<string, { tenant: string; uri: string }>();
    const now = this.now();
    for (const { session, expiresAt } of this.mirror.values()) {
      if (expiresAt <= now) continue;
      for (const uri of session.subscriptions ?? []) seen.set(JSON.stringify([session.tenant, uri]), { tenant: session.tenant, uri });
    }
    return [...seen.values()];
  }

  close(): void {
    this.watcher?.stop();
    if (this.sweeper) clearInterval(this.sweeper);
  }

  /** Nest calls this on the instance its factory made. */
  onApplicationShutdown(): void {
    this.close();
  }

  private liveEntry(id: string): MirrorEntry | undefined {
    const entry = this.mirror.get(id);
    return entry && entry.expiresAt > this.now() ? entry : undefined;
  }

  /** Reads the session from the bucket into the mirror; `undefined` when it is gone. */
  private async load(id: string): Promise<MirrorEntry | undefined> {
    const stored = await this.bucket.get(id);
    const session = stored === undefined ? undefined : parseSession(stored.value);
    if (!stored || !session) {
      this.drop(id);
      return undefined;
    }
    return this.remember(id, session, stored.revision);
  }

  /**
   * Keeps the copy unless the mirror already holds a newer revision; returns what the mirror holds. A
   * full mirror takes no new session (the copy is returned, not kept).
   */
  private remember(id: string, session: LegacySession, revision: number): MirrorEntry {
    const held = this.mirror.get(id);
    if (held && held.revision > revision) return held;
    const entry = { session, revision, expiresAt: session.touchedAt + this.options.ttlMs };
    if (held) this.unindex(id, held.session);
    else if (this.mirror.size >= this.maxMirrored) return entry;
    this.mirror.set(id, entry);
    this.index(id, session);
    if (!sameSubscriptions(held?.session.subscriptions, session.subscriptions)) this.subscriptionsChanged?.();
    return entry;
  }

  private drop(id: string): void {
    const held = this.mirror.get(id);
    if (!held) return;
    this.mirror.delete(id);
    this.unindex(id, held.session);
    if (held.session.subscriptions?.length) this.subscriptionsChanged?.();
  }

  private index(id: string, session: LegacySession): void {
    const caller = callerOf(session);
    let ids = this.byCaller.get(caller);
    if (!ids) this.byCaller.set(caller, (ids = new Set()));
    ids.add(id);
    this.perTenant.set(session.tenant, (this.perTenant.get(session.tenant) ?? 0) + 1);
  }

  private unindex(id: string, session: LegacySession): void {
    const caller = callerOf(session);
    const ids = this.byCaller.get(caller);
    ids?.delete(id);
    if (ids?.size === 0) this.byCaller.delete(caller);
    const left = (this.perTenant.get(session.tenant) ?? 1) - 1;
    if (left > 0) this.perTenant.set(session.tenant, left);
    else this.perTenant.delete(session.tenant);
  }

  private onChange(id: string, value: string | undefined, revision: number): void {
    if (value === undefined) {
      this.drop(id);
      return;
    }
    const session = parseSession(value);
    if (session) this.remember(id, session, revision);
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, entry] of this.mirror) if (entry.expiresAt <= now) this.drop(id);
  }
}

function sameSubscriptions(before: readonly string[] | undefined, after: readonly string[] | undefined): boolean {
  const a = before ?? [];
  const b = after ?? [];
  return a.length === b.length && a.every((uri, index) => b[index] === uri);
}

function parseSession(text: string): LegacySession | undefined {
  try {
    const parsed = LegacySessionSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
