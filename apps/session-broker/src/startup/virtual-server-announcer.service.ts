import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { toolExecutor } from '@mcp-platform/protocol-contracts';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { type ResolvedSessionBrokerOptions, SESSION_BROKER_OPTIONS } from '../session-broker.options';

const ATTEMPTS = 30;
const RETRY_MS = 1_000;

/**
 * Logs the full MCP URL of every virtual server once the tool executor answers, so a person can paste
 * one into a client. Runs in the background and retries briefly: the executor may start after us.
 */
@Injectable()
export class VirtualServerAnnouncer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SessionBroker');
  private stopped = false;

  constructor(
    private readonly bus: MessageBus,
    @Inject(SESSION_BROKER_OPTIONS) private readonly options: ResolvedSessionBrokerOptions,
  ) {}

  onApplicationBootstrap(): void {
    if (this.options.announceVirtualServers) void this.announce();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
  }

  /** The URLs of every virtual server, or `undefined` when the executor never answered. */
  async announce(): Promise<string[] | undefined> {
    for (let attempt = 1; attempt <= ATTEMPTS && !this.stopped; attempt++) {
      try {
        const { servers } = await this.bus.request(toolExecutor.listVirtualServers, {}, { timeoutMs: 2_000 });
        const urls = servers.map((server) => `${this.options.publicUrl}/${encodeURIComponent(server.tenant)}/${encodeURIComponent(server.name)}/mcp`);
        for (const [index, url] of urls.entries()) this.logger.log(`MCP server ${servers[index]?.tenant}/${servers[index]?.name}: ${url}`);
        if (urls.length === 0) this.logger.log('no virtual servers are configured yet');
        return urls;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
      }
    }
    if (!this.stopped) this.logger.warn('the tool executor did not answer; virtual server URLs are not known yet');
    return undefined;
  }
}
