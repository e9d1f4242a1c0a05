import { Module } from '@nestjs/common';
import { Clock, SystemClock } from '@mcp-platform/shared-clock';
import { AccessRevocations } from './access-revocations.service';
import { RevocationsNatsController } from './revocations.nats.controller';
import { RevocationsRepository } from './revocations.repository';

/**
 * Revocations of access tokens (a tenant or a user disabled or deleted): stored, announced, and served
 * to resource servers. Needs the app's connection and `MessageBus`.
 */
@Module({
  controllers: [RevocationsNatsController],
  providers: [RevocationsRepository, AccessRevocations, { provide: Clock, useClass: SystemClock }],
  exports: [AccessRevocations],
})
export class RevocationsModule {}
