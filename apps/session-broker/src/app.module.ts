import { type DynamicModule, Module } from '@nestjs/common';
import { MessagingModule, type MessagingOptions } from '@mcp-platform/shared-messaging';
import { HealthModule, type LogFormat, LoggingModule } from '@mcp-platform/shared-observability';
import { SessionBrokerModule } from './session-broker.module';
import type { SessionBrokerOptions } from './session-broker.options';

/** The session broker as its own process (distributed mode). */
@Module({})
export class AppModule {
  static forRoot(options: {
    logLevel: LoggingLevelName;
    logFormat?: LogFormat | undefined;
    messaging: MessagingOptions;
    broker: SessionBrokerOptions;
  }): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forRoot({ name: 'session-broker', level: options.logLevel, format: options.logFormat }),
        MessagingModule.forRoot(options.messaging),
        HealthModule.forRoot(),
        SessionBrokerModule.register(options.broker),
      ],
    };
  }
}

type LoggingLevelName = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
