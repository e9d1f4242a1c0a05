import { type DynamicModule, Module } from '@nestjs/common';
import { BuiltinModule } from '../builtin/builtin.module';
import { CatalogModule } from '../catalog/catalog.module';
import { SeedService } from './seed.service';

/** The `demo` and `conformance` tenants, written at boot when seeding is on. */
@Module({})
export class SeedModule {
  static register(enabled: boolean): DynamicModule {
    return { module: SeedModule, imports: [CatalogModule, BuiltinModule], providers: enabled ? [SeedService] : [] };
  }
}
