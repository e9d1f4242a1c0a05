import { type DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { defaultLogFormat, logDestination, type LogFormat } from './log-output';
import { PlatformLogger } from './platform-logger';

export interface LoggingOptions {
  /** The app's name, on every record. */
  name: string;
  level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
  /** JSON lines or readable lines (default: readable on a terminal, JSON otherwise). */
  format?: LogFormat | undefined;
}

/**
 * pino for every app, through nestjs-pino so Nest's own `Logger` writes there too (as
 * `PlatformLogger`, which keeps Nest's boot chatter at debug). No HTTP middleware (`forRoutes: []`): a
 * request-scoped child logger per request cost the MCP hot path about a tenth of the broker's CPU,
 * and the edge logs what matters itself.
 */
@Module({})
export class LoggingModule {
  static forRoot(options: LoggingOptions): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRoot({
          forRoutes: [],
          pinoHttp: [
            {
              name: options.name,
              level: options.level,
              // Never log credentials (S-238).
              redact: ['req.headers.authorization', 'req.headers.cookie'],
            },
            logDestination(options.format ?? defaultLogFormat()),
          ],
        }),
      ],
      providers: [PlatformLogger],
      exports: [PlatformLogger],
    };
  }
}
