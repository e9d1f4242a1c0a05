/** A stored signing key with what the choice of signer needs. */
export interface DatedKey {
  kid: string;
  activatedAt: Date;
  retiredAt: Date | null;
}

/** Which keys do what now. */
export interface KeyPlan<K extends DatedKey> {
  /** The signer: the most recently activated key that is not retired. */
  current: K | undefined;
  /** Keys that still verify tokens: the current one first, then the others, newest first. */
  published: K[];
  /** Retired keys past the overlap: nothing they signed can still be valid, so they go. */
  expired: K[];
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * Sorts the keys into signer, published and expired. A retired key stays published for `overlapMs`
 * after retirement (the longest lifetime of what it signed). An older key that is not retired (two
 * replicas raced) is published like a retired one but never signs.
 */
export function planKeys<K extends DatedKey>(keys: readonly K[], now: Date, overlapMs: number): KeyPlan<K> {
  const newestFirst = [...keys].sort((a, b) => b.activatedAt.getTime() - a.activatedAt.getTime() || (a.kid < b.kid ? -1 : 1));
  const current = newestFirst.find((key) => key.retiredAt === null && key.activatedAt.getTime() <= now.getTime());
  const expired = newestFirst.filter((key) => key.retiredAt !== null && now.getTime() - key.retiredAt.getTime() >= overlapMs);
  const published = [...(current ? [current] : []), ...newestFirst.filter((key) => key !== current && !expired.includes(key))];
  return { current, published, expired };
}

/** Whether the signer must be replaced: there is none, or it is `rotationDays` old. */
export function rotationDue(current: DatedKey | undefined, now: Date, rotationDays: number): boolean {
  return current === undefined || now.getTime() - current.activatedAt.getTime() >= rotationDays * DAY_MS;
}
