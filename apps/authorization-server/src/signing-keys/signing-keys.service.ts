import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { authorizationServer } from '@mcp-platform/protocol-contracts';
import { Clock } from '@mcp-platform/shared-clock';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { AUTHORIZATION_SERVER_OPTIONS } from '../authorization-server.constants';
import type { ResolvedAuthorizationServerOptions } from '../authorization-server.options';
import { KeyEncryption } from './key-encryption';
import { type GeneratedSigningKey, generateSigningKey, type Jwk, toPublicJwk } from './signing-key.generator';
import { planKeys, rotationDue } from './signing-key-plan';
import { SigningKeysRepository, type StoredSigningKey } from './signing-keys.repository';

/** A public JWK as published on the bus and at `jwks_uri`. */
export type PublicJwk = authorizationServer.PublicJwk;

/** A stored key with its private JWK opened (decrypted). */
interface OpenedKey {
  kid: string;
  activatedAt: Date;
  retiredAt: Date | null;
  privateJwk: Jwk;
}

/** How often a replica checks whether the signer is due for rotation and old keys can go. */
export const KEY_MAINTENANCE_INTERVAL_MS = 3600_000;

/**
 * The keys that sign the server's JWTs. One current signer (RS256, 2048 bits); after
 * `keyRotationDays` a new key takes over and the old one stays published, not used, for
 * `retiredKeyOverlapSeconds`, so tokens it signed still verify; then it is deleted. Checked at boot and
 * hourly under a database lock (one replica rotates); the rotating replica publishes
 * `signingKeysRotated`, and every replica reloads on it.
 */
@Injectable()
export class SigningKeysService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SigningKeysService.name);
  private readonly encryption: KeyEncryption;
  private readonly overlapMs: number;
  private readonly listeners = new Set<() => void>();
  private keys: OpenedKey[] = [];
  private loaded?: Promise<void>;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly repository: SigningKeysRepository,
    private readonly bus: MessageBus,
    private readonly clock: Clock,
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: ResolvedAuthorizationServerOptions,
  ) {
    this.encryption = new KeyEncryption(options.keyEncryptionSecret);
    this.overlapMs = options.retiredKeyOverlapSeconds * 1000;
  }

  async onModuleInit(): Promise<void> {
    await this.ready();
    this.timer = setInterval(() => {
      this.maintain().catch((error: unknown) => this.logger.error(`signing key maintenance failed: ${(error as Error).stack ?? String(error)}`));
    }, KEY_MAINTENANCE_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** The keys for oidc-provider's `jwks`: the current signer first, then the still-published ones, with private members. */
  async privateJwks(): Promise<Jwk[]> {
    await this.ready();
    return this.plan().published.map((key) => ({ ...key.privateJwk }));
  }

  /** The keys that verify tokens (current and recently retired), public members only. */
  async publicJwks(): Promise<PublicJwk[]> {
    await this.ready();
    return this.plan().published.map((key) => toPublicJwk(key.privateJwk) as PublicJwk);
  }

  /** What `authorizationServer.listSigningKeys` answers. */
  async signingKeySet(): Promise<{ issuer: string; keys: PublicJwk[] }> {
    return { issuer: this.options.issuer, keys: await this.publicJwks() };
  }

  /** Replaces the signer now, whatever its age (an operator suspects it leaked, or a test). */
  async rotate(): Promise<void> {
    await this.ready();
    await this.change(await generateSigningKey(), true);
  }

  /** Calls `listener` whenever this replica's key set changes (a rotation here or elsewhere); returns the unsubscribe. */
  onRotated(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Rotates when due and deletes expired keys; at boot and hourly. */
  async maintain(): Promise<void> {
    const stored = await this.repository.list();
    const plan = planKeys(stored, this.clock.date(), this.overlapMs);
    const due = rotationDue(plan.current, this.clock.date(), this.options.keyRotationDays);
    if (due || plan.expired.length > 0) await this.change(due ? await generateSigningKey() : undefined, false);
    else this.apply(stored);
  }

  /** Reads the keys again (another replica rotated). */
  async reload(): Promise<void> {
    this.apply(await this.repository.list());
  }

  private ready(): Promise<void> {
    this.loaded ??= this.maintain().catch((error: unknown) => {
      this.loaded = undefined;
      throw error;
    });
    return this.loaded;
  }

  /**
   * Under the rotation lock: installs `candidate` when given and still needed (forced, or the signer is
   * still due once the lock is held: another replica may have rotated meanwhile), and deletes the
   * expired keys. The candidate is generated before the lock, so no slow work happens while it is held.
   */
  private async change(candidate: GeneratedSigningKey | undefined, force: boolean): Promise<void> {
    const now = this.clock.date();
    const outcome = await this.repository.withRotationLock(async (store) => {
      const plan = planKeys(await store.list(), now, this.overlapMs);
      const install = candidate !== undefined && (force || rotationDue(plan.current, now, this.options.keyRotationDays));
      if (install) {
        await store.insert({ kid: candidate.kid, alg: candidate.alg, privateJwk: this.encryption.seal(candidate.privateJwk) }, now);
        await store.retireAllExcept(candidate.kid, now);
      }
      const dropped = plan.expired.map((key) => key.kid);
      await store.delete(dropped);
      return { rotatedTo: install ? candidate.kid : undefined, dropped, keys: await store.list() };
    });
    this.apply(outcome.keys);
    if (outcome.rotatedTo === undefined && outcome.dropped.length === 0) return;
    if (outcome.rotatedTo) this.logger.log(`signing key ${outcome.rotatedTo} took over`);
    if (outcome.dropped.length) this.logger.log(`dropped expired signing keys ${outcome.dropped.join(', ')}`);
    // Resource servers and the other replicas refresh their key sets.
    this.bus.emit(authorizationServer.signingKeysRotated, { kids: this.plan().published.map((key) => key.kid) });
  }

  /** Opens the stored keys and notifies listeners when the published set or the signer changed. */
  private apply(stored: StoredSigningKey[]): void {
    const before = this.fingerprint();
    const opened = stored.map((key) => ({
      kid: key.kid,
      activatedAt: key.activatedAt,
      retiredAt: key.retiredAt,
      privateJwk: this.encryption.open(key.privateJwk, key.kid),
    }));
    this.keys = opened;
    const after = this.fingerprint();
    if (before === after || before === '') return;
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (error) {
        this.logger.error(`a signing key listener failed: ${(error as Error).stack ?? String(error)}`);
      }
    }
  }

  private plan() {
    return planKeys(this.keys, this.clock.date(), this.overlapMs);
  }

  /** The signer and published kids, to tell whether anything a listener cares about changed. */
  private fingerprint(): string {
    if (this.keys.length === 0) return '';
    return this.plan()
      .published.map((key) => key.kid)
      .join(',');
  }
}
