import { Controller, Get, Inject, Optional } from '@nestjs/common';
import { HealthCheck, HealthCheckService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { NatsConnection } from 'nats';
import { NATS_CONNECTION } from '@mcp-platform/shared-messaging';
import { HEALTH_CHECKS, type ReadinessCheck } from './health.constants';

/** Liveness and readiness probes for Kubernetes and compose healthchecks. */
@Controller('health')
export class HealthController {
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

  /** The app can serve: its bus is connected and its own checks pass. */
  @Get('ready')
  @HealthCheck()
  ready() {
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
