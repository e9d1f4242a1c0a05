import { Module } from '@nestjs/common';
import { StoreModule } from '../store/store.module';
import { UpstreamCallsModule } from '../upstream-items/upstream-calls.module';
import { CompletionNatsController } from './completion.nats.controller';
import { CompletionService } from './completion.service';

/** completion/complete for prompt arguments and template variables. */
@Module({ imports: [StoreModule, UpstreamCallsModule], controllers: [CompletionNatsController], providers: [CompletionService] })
export class CompletionModule {}
