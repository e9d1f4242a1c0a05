import { Controller, Get, Inject, Optional, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { NatsConnection } from 'nats';
import { NATS_CONNECTION } from '@mcp-platform/shared-messaging';
import type { OnDrain } from './drain';
import { HEALTH_CHECKS, type ReadinessCheck } from './health.constants';

/** Liveness and readiness probes for Kubernetes and compose healthchecks. */
@Controller('health')
export class HealthController implements OnDrain {
  /** Set once the app drains: it is alive, but no longer ready. */
  private draining = false;

  constructor(
    private readonly health: HealthCheckService,
    @Optional() @Inject(NATS_CONNECTION) private readonly nats: NatsConnection | null,
    @Optional() @Inject(HEALTH_CHECKS) private readonly checks: ReadinessCheck[] | null,
  ) {}

  /** The process is up and its event loop turns. */
  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /**
   * The app stops: readiness fails at once, so a load balancer or Kubernetes stops sending it new
   * requests while what is in flight finishes.
   */
  onDrain(): void {
    this.draining = true;
  }

  /** The app can serve: it is not stopping, its bus is connected and its own checks pass. */
  @Get('ready')
  @HealthCheck()
  ready() {
    if (this.draining) {
      throw new ServiceUnavailableException({
        status: 'error',
        info: {},
        error: { shutdown: { status: 'down', message: 'the service is shutting down' } },
        details: {},
      });
    }
    const indicators = [
      async (): Promise<HealthIndicatorResult> => {
        const up = this.nats === null || this.nats === undefined || !this.nats.isClosed();
        if (!up) throw new Error('NATS connection closed');
        return { bus: { status: 'up' } };
      },
      ...(this.checks ?? []).map((check) => async (): Promise<HealthIndicatorResult> => {
        await check.check();
        return { [check.name]: { status: 'up' } };
      }),
    ];
    return this.health.check(indicators);
  }
}
