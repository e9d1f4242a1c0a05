import { type DynamicModule, Module } from '@nestjs/common';
import { Clock, IdSource, RandomIds, SystemClock } from '@mcp-platform/shared-clock';
import { CatalogModule } from '../catalog/catalog.module';
import { SecretBox } from '../credentials/secret-box';
import { UpstreamAdminService } from './upstream-admin.service';
import { UpstreamCallRouting } from './upstream-call-routing';
import { UpstreamConnections } from './upstream-connections';
import { UpstreamHealthTracker } from './upstream-health';
import { UpstreamReadsNatsController } from './upstream-reads.nats.controller';
import { UpstreamReadsService } from './upstream-reads.service';
import { UpstreamResync } from './upstream-resync';
import { UpstreamSecrets } from './upstream-secrets';
import { UpstreamServedItems } from './upstream-served-items';
import { UpstreamSourceCache } from './upstream-source.cache';
import { UpstreamSourcesRepository } from './upstream-sources.repository';
import { UpstreamSubscriptionsNatsController } from './upstream-subscriptions.nats.controller';
import { UpstreamSubscriptions } from './upstream-subscriptions.service';
import { UpstreamSyncService } from './upstream-sync.service';
import { UpstreamTasks } from './upstream-tasks';
import { UpstreamTasksNatsController } from './upstream-tasks.nats.controller';
import { UpstreamToolRunner } from './upstream-tool.runner';
import { UPSTREAM_OPTIONS, type UpstreamOptions } from './upstreams.constants';
import { UpstreamsNatsController } from './upstreams.nats.controller';

/** Upstream MCP servers as tool sources (issue 15): sources, connections, pinning and the runner of their tools. */
@Module({})
export class UpstreamsModule {
  static register(options: UpstreamOptions): DynamicModule {
    return {
      module: UpstreamsModule,
      global: false,
      imports: [CatalogModule],
      controllers: [UpstreamsNatsController, UpstreamReadsNatsController, UpstreamSubscriptionsNatsController, UpstreamTasksNatsController],
      providers: [
        { provide: UPSTREAM_OPTIONS, useValue: options },
        { provide: Clock, useClass: SystemClock },
        { provide: IdSource, useClass: RandomIds },
        { provide: UpstreamSecrets, useFactory: () => new UpstreamSecrets(new SecretBox(options.secretsKey), options.stdioServers) },
        {
          provide: UpstreamHealthTracker,
          inject: [Clock, UpstreamSourcesRepository],
          // The replica's view of a source's health is kept for the admin API; a lost write only delays it.
          useFactory: (clock: Clock, repository: UpstreamSourcesRepository) =>
            new UpstreamHealthTracker(clock, (sourceId, health) => void repository.setHealth(sourceId, health).catch(() => undefined)),
        },
        UpstreamSourcesRepository,
        UpstreamSourceCache,
        UpstreamCallRouting,
        UpstreamConnections,
        UpstreamServedItems,
        UpstreamSyncService,
        UpstreamResync,
        UpstreamTasks,
        UpstreamToolRunner,
        UpstreamAdminService,
        UpstreamReadsService,
        UpstreamSubscriptions,
      ],
      exports: [UpstreamToolRunner],
    };
  }
}
