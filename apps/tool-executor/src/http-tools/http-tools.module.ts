import { type DynamicModule, Module } from '@nestjs/common';
import { IdSource, RandomIds } from '@mcp-platform/shared-clock';
import { CatalogModule } from '../catalog/catalog.module';
import { HttpToolRunner } from './http-tool.runner';
import { HttpToolTransport, UndiciHttpToolTransport } from './http-tool.transport';
import { HttpToolFailures, PersistedHttpToolFailures } from './http-tool-failures';
import { DEFAULT_HTTP_TOOL_TIMEOUT_MS, DEFAULT_MAX_RESPONSE_BYTES, HTTP_TOOL_OPTIONS, type HttpToolOptions } from './http-tools.constants';

/** Tools of kind `http`: the guarded outbound transport, the runner, and where their failures are kept. */
@Module({})
export class HttpToolsModule {
  static register(options: { allowPrivateNetworks: boolean; timeoutMs?: number }): DynamicModule {
    const resolved: HttpToolOptions = {
      allowPrivateNetworks: options.allowPrivateNetworks,
      timeoutMs: options.timeoutMs ?? DEFAULT_HTTP_TOOL_TIMEOUT_MS,
      maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
    };
    return {
      module: HttpToolsModule,
      imports: [CatalogModule],
      providers: [
        { provide: HTTP_TOOL_OPTIONS, useValue: resolved },
        { provide: HttpToolTransport, useClass: UndiciHttpToolTransport },
        { provide: HttpToolFailures, useClass: PersistedHttpToolFailures },
        { provide: IdSource, useClass: RandomIds },
        HttpToolRunner,
      ],
      exports: [HttpToolRunner],
    };
  }
}
