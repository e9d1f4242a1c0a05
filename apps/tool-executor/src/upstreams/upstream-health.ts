import { Logger } from '@nestjs/common';
import type { toolExecutor } from '@mcp-platform/protocol-contracts';
import type { Clock } from '@mcp-platform/shared-clock';

type Health = toolExecutor.UpstreamHealth;

/** After this many failures in a row, calls are refused at once until a probe is due. */
export const CIRCUIT_FAILURES = 3;
const FIRST_OPEN_MS = 1_000;
const LONGEST_OPEN_MS = 60_000;

/** Refused without trying: the source's circuit is open. */
export class CircuitOpen extends Error {
  constructor(
    readonly source: string,
    readonly retryAfterMs: number,
  ) {
    super(`upstream ${source} failed ${CIRCUIT_FAILURES} times in a row; the next attempt is in ${Math.ceil(retryAfterMs / 1000)} s`);
    this.name = 'CircuitOpen';
  }
}

interface SourceState {
  health: Health;
  failures: number;
  openUntil: number;
}

/**
 * Health and circuit breaking per source, on this replica. A failure to reach, initialize or hear from
 * an upstream counts; a tool's own error result or a JSON-RPC error answered by the upstream does not.
 * After {@link CIRCUIT_FAILURES} in a row the circuit opens for 1 s, doubling per further failure up to
 * a minute; when it is due one attempt goes through (half-open): success closes it. Every change of
 * state is logged and handed to `onChange` (which stores it for the admin API).
 */
export class UpstreamHealthTracker {
  private readonly logger = new Logger(UpstreamHealthTracker.name);
  private readonly states = new Map<string, SourceState>();

  constructor(
    private readonly clock: Clock,
    private readonly onChange: (sourceId: string, health: Health) => void,
  ) {}

  /** Throws {@link CircuitOpen} while the source's circuit is open and no probe is due. */
  assertClosed(sourceId: string, label: string): void {
    const state = this.states.get(sourceId);
    if (!state || state.failures < CIRCUIT_FAILURES) return;
    const wait = state.openUntil - this.clock.now();
    if (wait > 0) throw new CircuitOpen(label, wait);
  }

  connected(sourceId: string, label: string, details: Pick<Health, 'era' | 'protocolVersion' | 'serverInfo'>): void {
    const state = this.stateOf(sourceId);
    state.failures = 0;
    this.enter(sourceId, label, 'connected', { ...details });
  }

  /** A call or a sync worked: the circuit closes, a degraded or failing source is connected again. */
  succeeded(sourceId: string, label: string): void {
    const state = this.stateOf(sourceId);
    state.failures = 0;
    if (state.health.state !== 'connected') this.enter(sourceId, label, 'connected', {});
  }

  /** The catalog was read but cut short (a limit), or a call failed while the connection held. */
  degraded(sourceId: string, label: string, errorId: string, detail: string): void {
    this.enter(sourceId, label, 'degraded', { lastError: { at: new Date(this.clock.now()).toISOString(), errorId, detail } });
  }

  failed(sourceId: string, label: string, errorId: string, detail: string): void {
    const state = this.stateOf(sourceId);
    state.failures += 1;
    const lastError = { at: new Date(this.clock.now()).toISOString(), errorId, detail };
    if (state.failures >= CIRCUIT_FAILURES) {
      state.openUntil = this.clock.now() + Math.min(LONGEST_OPEN_MS, FIRST_OPEN_MS * 2 ** (state.failures - CIRCUIT_FAILURES));
      this.enter(sourceId, label, 'circuit-open', { lastError });
    } else this.enter(sourceId, label, 'failing', { lastError });
  }

  synced(sourceId: string): void {
    const state = this.stateOf(sourceId);
    state.health = { ...state.health, syncedAt: new Date(this.clock.now()).toISOString() };
    this.onChange(sourceId, state.health);
  }

  current(sourceId: string): Health | undefined {
    return this.states.get(sourceId)?.health;
  }

  forget(sourceId: string): void {
    this.states.delete(sourceId);
  }

  private stateOf(sourceId: string): SourceState {
    let state = this.states.get(sourceId);
    if (!state) {
      state = { health: { state: 'unknown', since: new Date(this.clock.now()).toISOString() }, failures: 0, openUntil: 0 };
      this.states.set(sourceId, state);
    }
    return state;
  }

  private enter(sourceId: string, label: string, next: Health['state'], changes: Partial<Health>): void {
    const state = this.stateOf(sourceId);
    const previous = state.health.state;
    const since = previous === next ? state.health.since : new Date(this.clock.now()).toISOString();
    state.health = { ...state.health, ...changes, state: next, since };
    if (previous !== next) {
      const detail = changes.lastError ? `: ${changes.lastError.detail} (error id ${changes.lastError.errorId})` : '';
      if (next === 'connected') this.logger.log(`upstream ${label} is ${next}${detail}`);
      else this.logger.warn(`upstream ${label} is ${next}${detail}`);
    }
    this.onChange(sourceId, state.health);
  }
}
