import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';

/** `/health/live` and `/health/ready`; pass a provider of `HEALTH_CHECKS` to add readiness conditions. */
@Module({})
export class HealthModule {
  static forRoot(options: { checks?: Provider } = {}): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ logger: false })],
      controllers: [HealthController],
      providers: options.checks ? [options.checks] : [],
    };
  }
}
