import { Module, type DynamicModule } from '@nestjs/common';
import { PromptsModule } from '../prompts/prompts.module';
import { SeedService } from './seed.service';

/** The `conformance` and `demo` fixtures, written at boot when seeding is on. */
@Module({})
export class SeedModule {
  /** `resources` is the very `ResourcesModule.register(...)` object the store imports, so both share one instance. */
  static register(enabled: boolean, resources: DynamicModule): DynamicModule {
    return { module: SeedModule, imports: [resources, PromptsModule], providers: enabled ? [SeedService] : [] };
  }
}
