import { type DynamicModule, Module } from '@nestjs/common';
import { StoreModule } from '../store/store.module';
import { UpstreamCallsModule } from '../upstream-items/upstream-calls.module';
import { SkillAdminNatsController } from './skill-admin.nats.controller';
import { SkillsNatsController } from './skills.nats.controller';
import { SkillsRepository } from './skills.repository';
import { SkillsService } from './skills.service';

/**
 * Agent skills (SEP-2640): each a folder whose files are resources at `skill://<name>/<path>`, the
 * tenant's own or an upstream source's (a directory of those is read by the executor). Uses the
 * resources module's limits and read cache (`resources`, the registered `ResourcesModule`).
 */
@Module({})
export class SkillsModule {
  static register(resources: DynamicModule): DynamicModule {
    return {
      module: SkillsModule,
      imports: [StoreModule, UpstreamCallsModule, resources],
      controllers: [SkillsNatsController, SkillAdminNatsController],
      providers: [SkillsRepository, SkillsService],
      exports: [SkillsService],
    };
  }
}
