import { Injectable, Logger } from '@nestjs/common';
import { resourceStore, type RpcResponse } from '@mcp-platform/protocol-contracts';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { ResourceReadCache } from '../resources/resource-read.cache';
import type { KindChange, UpstreamItemsPlan, UpstreamItemsRequest } from './upstream-items.plan';
import { UpstreamItemsRepository } from './upstream-items.repository';

/**
 * `putUpstreamItems`: the approved prompts, resources, resource templates and skills of one upstream source, as
 * the tool executor hands them over, replace what the store served for that source (issue 15 §3). The
 * store has no list of tenants (an item's tenant is its slug, as for every write): a tenant unknown
 * here gets the items like any other, and losing the tenant deletes them with its content. Names the
 * tenant's own items or another source hold are refused, with the reason. A change is announced
 * (`listChanged` for the touched servers and lists) and drops the tenant's cached reads on this replica,
 * as every write does; an identical put changes, announces and drops nothing.
 */
@Injectable()
export class UpstreamItemsService {
  private readonly logger = new Logger(UpstreamItemsService.name);

  constructor(
    private readonly repository: UpstreamItemsRepository,
    private readonly bus: MessageBus,
    private readonly readCache: ResourceReadCache,
  ) {}

  async put(request: UpstreamItemsRequest): Promise<RpcResponse<typeof resourceStore.putUpstreamItems>> {
    let plan: UpstreamItemsPlan | undefined;
    try {
      plan = await this.repository.replaceSource(request);
    } finally {
      // A failed write may have committed; an unchanged one dropped nothing (a read cache of the old rows stays right).
      if (!plan || changedLists(plan).length > 0) this.readCache.invalidateTenant(request.tenant);
    }
    const { prompts, resources, resourceTemplates, skills } = plan.changes;
    if (prompts.changed) this.bus.emit(resourceStore.listChanged, { tenant: request.tenant, servers: prompts.servers, lists: ['prompts'] });
    // A skill's files are resources, and `skills/list` has no list-changed of its own: both are `resources`.
    const resourceLists = [resources, resourceTemplates, skills].filter((change) => change.changed);
    if (resourceLists.length > 0) {
      this.bus.emit(resourceStore.listChanged, { tenant: request.tenant, servers: mergedServers(resourceLists), lists: ['resources'] });
    }
    const changed = changedLists(plan).length > 0;
    for (const refusal of plan.refused) {
      this.logger.warn(`upstream source ${request.source} of tenant ${request.tenant}: ${refusal.kind} ${refusal.name} not served: ${refusal.reason}`);
    }
    if (changed) {
      const counts = `${plan.rows.prompts.length} prompt(s), ${plan.rows.resources.length} resource(s), ${plan.rows.resourceTemplates.length} template(s), ${plan.rows.skills.length} skill(s)`;
      this.logger.debug(`upstream source ${request.source} of tenant ${request.tenant} now serves ${counts}`);
    }
    return { changed, refused: plan.refused };
  }
}

function changedLists(plan: UpstreamItemsPlan): KindChange[] {
  return Object.values(plan.changes).filter((change) => change.changed);
}

/** The servers of several changes of one list: every server (`[]`) when one of them is. */
function mergedServers(changes: KindChange[]): string[] {
  if (changes.some((change) => change.servers.length === 0)) return [];
  return [...new Set(changes.flatMap((change) => change.servers))].sort();
}
