import { Module, type DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';

export interface LoggingOptions {
  /** The app's name, on every record. */
  name: string;
  level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
}

/**
 * pino for every app, through nestjs-pino so Nest's own `Logger` writes there too. No HTTP
 * middleware (`forRoutes: []`): a request-scoped child logger per request cost the MCP hot path
 * about a tenth of the broker's CPU, and the edge logs what matters itself.
 */
@Module({})
export class LoggingModule {
  static forRoot(options: LoggingOptions): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRoot({
          forRoutes: [],
          pinoHttp: {
            name: options.name,
            level: options.level,
            // Never log credentials (S-238).
            redact: ['req.headers.authorization', 'req.headers.cookie'],
          },
        }),
      ],
    };
  }
}
