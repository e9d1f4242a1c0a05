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
  createdAt: z.number(),
  /** Last write; the bucket expires entries this long after it, so busy sessions are rewritten now and then. */
  touchedAt: z.number(),
});
export type LegacySession = z.infer<typeof LegacySessionSchema>;

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
      if (await this.bucket.create(id, JSON.stringify(session))) {
        this.remember(id, session);
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

  /** Merges fields into a session; a no-op for an unknown one. */
  async update(id: string, fields: Partial<Pick<LegacySession, 'logLevel' | 'initialized'>>): Promise<LegacySession | undefined> {
    const current = this.mirror.get(id)?.session ?? (await this.get(id));
    if (!current) return undefined;
    const next: LegacySession = { ...current, ...fields, touchedAt: this.now() };
    this.remember(id, next);
    try {
      await this.bucket.put(id, JSON.stringify(next));
    } catch (error) {
      this.logger.warn(`could not write session ${id.slice(0, 8)}…: ${(error as Error).message}`);
    }
    return next;
  }

  /** Ends a session everywhere: every replica's watch drops it from its mirror. */
  async delete(id: string): Promise<void> {
    this.mirror.delete(id);
    await this.bucket.delete(id);
  }

  /** Drops a session from this replica's mirror (a `sessionClosed` event arrived before the watch did). */
  forget(id: string): void {
    this.mirror.delete(id);
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

  private onChange(id: string, value: string | undefined): void {
    if (value === undefined) {
      this.mirror.delete(id);
      return;
    }
    const session = parseSession(value);
    if (session) this.remember(id, session);
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, entry] of this.mirror) if (entry.expiresAt <= now) this.mirror.delete(id);
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
