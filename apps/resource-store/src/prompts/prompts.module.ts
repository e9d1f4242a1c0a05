import { Module } from '@nestjs/common';
import { StoreModule } from '../store/store.module';
import { UpstreamCallsModule } from '../upstream-items/upstream-calls.module';
import { PromptAdminNatsController } from './prompt-admin.nats.controller';
import { PromptsNatsController } from './prompts.nats.controller';
import { PromptsService } from './prompts.service';

/** Prompts: listing, rendering and writing. */
@Module({
  imports: [StoreModule, UpstreamCallsModule],
  controllers: [PromptsNatsController, PromptAdminNatsController],
  providers: [PromptsService],
  exports: [PromptsService],
})
export class PromptsModule {}
