import { Module } from '@nestjs/common';
import { Clock, SystemClock } from '@mcp-platform/shared-clock';
import { SigningKeysNatsController } from './signing-keys.nats.controller';
import { SigningKeysRepository } from './signing-keys.repository';
import { SigningKeysService } from './signing-keys.service';

/** Signing keys: storage, rotation, and their publication over the bus. Needs `AUTHORIZATION_SERVER_OPTIONS`. */
@Module({
  controllers: [SigningKeysNatsController],
  providers: [SigningKeysRepository, SigningKeysService, { provide: Clock, useClass: SystemClock }],
  exports: [SigningKeysService],
})
export class SigningKeysModule {}
