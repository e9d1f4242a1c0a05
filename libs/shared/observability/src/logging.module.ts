import { Module, type DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';

export interface LoggingOptions {
  /** The app's name, on every record. */
  name: string;
  level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
}

/**
 * pino for every app, through nestjs-pino so Nest's own `Logger` writes there too. HTTP access logs
 * are off: the MCP edge logs what matters itself, and a line per request would cost the hot path.
 */
@Module({})
export class LoggingModule {
  static forRoot(options: LoggingOptions): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: {
            name: options.name,
            level: options.level,
            autoLogging: false,
            quietReqLogger: true,
            // Never log credentials (S-238).
            redact: ['req.headers.authorization', 'req.headers.cookie'],
          },
        }),
      ],
    };
  }
}
