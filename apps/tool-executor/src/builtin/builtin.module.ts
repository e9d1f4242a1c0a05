import { Module } from '@nestjs/common';
import { Clock, SystemClock } from '@mcp-platform/shared-clock';
import { BuiltinToolRegistry } from './builtin-tool.registry';

/** The built-in tool implementations and the clock they (and the calls service) run on. */
@Module({
  providers: [BuiltinToolRegistry, { provide: Clock, useClass: SystemClock }],
  exports: [BuiltinToolRegistry, Clock],
})
export class BuiltinModule {}
