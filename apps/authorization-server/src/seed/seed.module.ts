import { Module, type DynamicModule } from '@nestjs/common';
import { IdentityModule } from '../identity/identity.module';
import { SeedService } from './seed.service';

/** The seed and the bootstrap platform admin, written at boot when configured. */
@Module({})
export class SeedModule {
  static register(enabled: boolean): DynamicModule {
    return { module: SeedModule, imports: [IdentityModule], providers: enabled ? [SeedService] : [] };
  }
}
