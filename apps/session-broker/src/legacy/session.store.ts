import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { z } from 'zod';
import type { KeyValueFactory, KeyValueStore } from '@mcp-platform/shared-messaging';
import { LoggingLevelSchema } from '@mcp-platform/protocol-mcp';

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
  /** The version negotiated in `initialize`. */
  protocolVersion: z.string(),
  clientCapabilities: z.record(z.string(), z.unknown()),
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

/** How long a write's echo through the watch may take before it counts as lost. */
const ECHO_PATIENCE_MS = 10_000;

/** The shape session ids take here; anything else is unknown without a look-up. */
const SESSION_ID = /^[A-Za-z0-9_-]{16,128}$/;

export const SESSION_BUCKET = 'mcp-sessions';

interface MirrorEntry {
  session: LegacySession;
  expiresAt: number;
}

export interface SessionStoreOptions {
  ttlMs: number;
  now?: () => number;
  newId?: () => string;
}

/**
 * Legacy session state in a replicated KV bucket (NATS JetStream KV in distributed mode), so any
 * replica serves any session without stickiness (§3.2.1). A local mirror, kept current by the
 * bucket's watch and filled by a direct read on a miss, keeps the KV round trip off the hot path.
 */
export class SessionStore {
  private readonly logger = new Logger(SessionStore.name);
  private readonly mirror = new Map<string, MirrorEntry>();
  /**
   * What this replica wrote whose echo has not come back through the watch yet, oldest first, per
   * session. While one is outstanding, a value the watch delivers is older than the mirror's (the
   * watch replays the bucket's writes in order), so applying it would undo a newer local change,
   * e.g. the second of two quick `resources/subscribe` calls.
   */
  private readonly unconfirmed = new Map<string, Array<{ text: string; at: number }>>();
  private readonly now: () => number;
  private readonly newId: () => string;
  private watcher: { stop(): void } | undefined;
  private sweeper: NodeJS.Timeout | undefined;

  private constructor(
    private readonly bucket: KeyValueStore,
    private readonly options: SessionStoreOptions,
  ) {
    this.now = options.now ?? Date.now;
    // spec S-91/S-97: 192 bits from a secure RNG, visible ASCII only (base64url).
    this.newId = options.newId ?? (() => randomBytes(24).toString('base64url'));
  }

  static async open(keyValue: KeyValueFactory, options: SessionStoreOptions): Promise<SessionStore> {
    const bucket = await keyValue.open(SESSION_BUCKET, { ttlMs: options.ttlMs });
    const store = new SessionStore(bucket, options);
    store.watcher = await bucket.watch((change) => store.onChange(change.key, change.value));
    store.sweeper = setInterval(() => store.sweep(), Math.min(options.ttlMs, 60_000));
    store.sweeper.unref();
    return store;
  }

  /** Creates a session and returns its new id. */
  async create(fields: Omit<LegacySession, 'createdAt' | 'touchedAt' | 'initialized'>): Promise<{ id: string; session: LegacySession }> {
    const now = this.now();
    const session: LegacySession = { ...fields, initialized: false, createdAt: now, touchedAt: now };
    for (let attempt = 0; attempt < 3; attempt++) {
      const id = this.newId();
      const text = JSON.stringify(session);
      this.expectEcho(id, text);
      if (await this.bucket.create(id, text)) {
        this.remember(id, session);
        return { id, session };
      }
      this.unconfirmed.delete(id);
    }
    throw new Error('could not mint a unique session id');
  }

  /** The live session with this id, or `undefined` when it is unknown, ended or expired (S-93). */
  async get(id: string): Promise<LegacySession | undefined> {
    if (!SESSION_ID.test(id)) return undefined;
    const entry = this.mirror.get(id);
    const now = this.now();
    if (entry && entry.expiresAt > now) {
      if (now - entry.session.touchedAt > this.options.ttlMs / 2) void this.update(id, {});
      return entry.session;
    }
    const stored = await this.bucket.get(id);
    const session = stored === undefined ? undefined : parseSession(stored);
    if (!session) {
      this.mirror.delete(id);
      return undefined;
    }
    this.remember(id, session);
    return session;
  }

  /**
   * Merges fields into a session; a no-op for an unknown one. Given a function, it computes the fields
   * from this replica's freshest copy, with no await in between, so changes made on one replica never
   * overwrite each other; `undefined` from it means there is nothing to write. Writes from two
   * replicas at the same instant are last-writer-wins: the bucket offers no compare-and-set here.
   */
  async update(id: string, fields: SessionChange | ((current: LegacySession) => SessionChange | undefined)): Promise<LegacySession | undefined> {
    const current = this.mirror.get(id)?.session ?? (await this.get(id));
    if (!current) return undefined;
    const change = typeof fields === 'function' ? fields(current) : fields;
    if (change === undefined) return current;
    const next: LegacySession = { ...current, ...change, touchedAt: this.now() };
    this.remember(id, next);
    const text = JSON.stringify(next);
    this.expectEcho(id, text);
    try {
      await this.bucket.put(id, text);
    } catch (error) {
      this.dropEcho(id, text);
      this.logger.warn(`could not write session ${id.slice(0, 8)}…: ${(error as Error).message}`);
    }
    return next;
  }

  /**
   * Whether the session subscribed to `uri`, from this replica's mirror only (no bucket read): it is
   * asked for every session with a GET stream here on every resource change, and a session whose
   * stream is open here is in the mirror, kept current by the watch.
   */
  isSubscribed(id: string, uri: string): boolean {
    const entry = this.mirror.get(id);
    return entry !== undefined && entry.expiresAt > this.now() && (entry.session.subscriptions?.includes(uri) ?? false);
  }

  /** Ends a session everywhere: every replica's watch drops it from its mirror. */
  async delete(id: string): Promise<void> {
    this.mirror.delete(id);
    this.unconfirmed.delete(id);
    await this.bucket.delete(id);
  }

  /** Drops a session from this replica's mirror (a `sessionClosed` event arrived before the watch did). */
  forget(id: string): void {
    this.mirror.delete(id);
    this.unconfirmed.delete(id);
  }

  close(): void {
    this.watcher?.stop();
    if (this.sweeper) clearInterval(this.sweeper);
  }

  /** Nest calls this on the instance its factory made. */
  onApplicationShutdown(): void {
    this.close();
  }

  private remember(id: string, session: LegacySession): void {
    this.mirror.set(id, { session, expiresAt: session.touchedAt + this.options.ttlMs });
  }

  private expectEcho(id: string, text: string): void {
    const pending = this.unconfirmed.get(id);
    if (pending) pending.push({ text, at: this.now() });
    else this.unconfirmed.set(id, [{ text, at: this.now() }]);
  }

  private dropEcho(id: string, text: string): void {
    const pending = this.unconfirmed.get(id);
    const index = pending?.findIndex((entry) => entry.text === text) ?? -1;
    if (index >= 0) pending?.splice(index, 1);
    if (pending?.length === 0) this.unconfirmed.delete(id);
  }

  private onChange(id: string, value: string | undefined): void {
    if (value === undefined) {
      this.mirror.delete(id);
      this.unconfirmed.delete(id);
      return;
    }
    const pending = this.unconfirmed.get(id);
    const oldest = pending?.[0];
    // An echo still missing after this long was lost (a watch hiccup): stop waiting for it.
    if (oldest && this.now() - oldest.at > ECHO_PATIENCE_MS) this.unconfirmed.delete(id);
    else if (pending) {
      // Our own write coming back (and any of ours before it, already overtaken), or a foreign write
      // the bucket ordered before our outstanding ones: either way not newer than the mirror until
      // the last outstanding echo arrives.
      const index = pending.findIndex((entry) => entry.text === value);
      if (index < 0) return;
      pending.splice(0, index + 1);
      if (pending.length > 0) return;
      this.unconfirmed.delete(id);
    }
    const session = parseSession(value);
    if (session) this.remember(id, session);
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, entry] of this.mirror) if (entry.expiresAt <= now) this.mirror.delete(id);
    // An echo that never came (a watch hiccup) must not freeze a session's mirror for ever.
    for (const id of this.unconfirmed.keys()) if (!this.mirror.has(id)) this.unconfirmed.delete(id);
  }
}

function parseSession(text: string): LegacySession | undefined {
  try {
    const parsed = LegacySessionSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
