import { type DynamicModule, Module } from '@nestjs/common';
import { UpstreamItemsNatsController } from './upstream-items.nats.controller';
import { UpstreamItemsRepository } from './upstream-items.repository';
import { UpstreamItemsService } from './upstream-items.service';

/**
 * The upstream items the tool executor hands over (`putUpstreamItems`). Needs the resources module (the
 * read cache its writes drop); serving them is the resources', prompts' and completion's (`UpstreamCalls`).
 */
@Module({})
export class UpstreamItemsModule {
  static register(resources: DynamicModule): DynamicModule {
    return {
      module: UpstreamItemsModule,
      imports: [resources],
      controllers: [UpstreamItemsNatsController],
      providers: [UpstreamItemsService, UpstreamItemsRepository],
    };
  }
}
