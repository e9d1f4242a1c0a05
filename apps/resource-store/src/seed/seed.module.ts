import { type DynamicModule, Module } from '@nestjs/common';
import { PromptsModule } from '../prompts/prompts.module';
import { SeedService } from './seed.service';

/** The `conformance` and `demo` fixtures, written at boot when seeding is on. */
@Module({})
export class SeedModule {
  /** `resources` and `skills` are the very `ResourcesModule.register(...)` objects the store imports, so they share one instance each. */
  static register(enabled: boolean, resources: DynamicModule, skills: DynamicModule): DynamicModule {
    return { module: SeedModule, imports: [resources, PromptsModule, skills], providers: enabled ? [SeedService] : [] };
  }
}
