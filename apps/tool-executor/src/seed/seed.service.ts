import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { toolExecutor } from '@mcp-platform/protocol-contracts';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { builtinToolDefinition } from '../builtin/builtin-tool';
import { BuiltinToolRegistry } from '../builtin/builtin-tool.registry';
import { CatalogRepository } from '../catalog/catalog.repository';
import { DEFAULT_TOOL_TIMEOUT_MS, type VirtualServerDefinition } from '../catalog/catalog.types';

interface SeedTenant {
  tenant: string;
  set: 'demo' | 'conformance';
  server: VirtualServerDefinition;
}

/**
 * The catalog every fresh install starts with. MCP URLs (through the broker):
 * `/demo/default/mcp` (sign-in required) and `/conformance/everything/mcp` (public, for the suite).
 */
export const SEED_TENANTS: SeedTenant[] = [
  {
    tenant: 'demo',
    set: 'demo',
    server: {
      name: 'default',
      title: 'Demo tools',
      description:
        "Everyday utilities: time zones, arithmetic, UUIDs, hashes, text statistics, a cancellable long operation and a report export that runs as a task; and tools that ask the client: a confirmation from the user, a summary from the client's model, the client's roots.",
      instructions:
        'Use calculate for arithmetic instead of computing by hand; current_time takes an IANA time zone. Call confirm_action before anything the user may not want done.',
      public: false,
    },
  },
  {
    tenant: 'conformance',
    set: 'conformance',
    server: {
      name: 'everything',
      title: 'Conformance fixtures',
      description: 'The fixtures the official MCP conformance suite expects.',
      public: true,
    },
  },
];

/** Writes the seed catalog at boot when enabled; idempotent, safe with several replicas. */
@Injectable()
export class SeedService implements OnModuleInit {
  private readonly logger = new Logger(SeedService.name);

  constructor(
    private readonly repository: CatalogRepository,
    private readonly builtins: BuiltinToolRegistry,
    private readonly bus: MessageBus,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.seed();
  }

  async seed(): Promise<void> {
    for (const entry of SEED_TENANTS) {
      await this.repository.ensureTenant(entry.tenant);
      const tools = this.builtins.set(entry.set);
      let changed = false;
      for (const tool of tools) changed = (await this.repository.saveTool(entry.tenant, builtinToolDefinition(tool, DEFAULT_TOOL_TIMEOUT_MS))) || changed;
      changed =
        (await this.repository.saveVirtualServer(
          entry.tenant,
          entry.server,
          tools.map((tool) => tool.definition.name),
        )) || changed;
      if (changed) {
        this.logger.debug(`seeded tenant ${entry.tenant}`);
        // Brokers and the other executor replicas refresh their view of this tenant.
        this.bus.emit(toolExecutor.catalogChanged, { tenant: entry.tenant, servers: [entry.server.name] });
      }
    }
  }
}
