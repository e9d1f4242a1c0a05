import { Injectable, Logger } from '@nestjs/common';
import { resourceStore, type RpcRequest, type toolExecutor } from '@mcp-platform/protocol-contracts';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { exposedName } from './upstream-definitions';
import type { UpstreamItemEntity } from './upstream-item.entity';
import type { StoredSource } from './upstream-sources.repository';

type ItemKind = toolExecutor.UpstreamItemKind;

/** Why a once-approved item is held, as callers read it. */
export const HELD_CHANGED = 'its definition changed upstream and waits for an administrator to approve the change';
export const HELD_REMOVED = 'the upstream server no longer lists it';
export const HELD_DISABLED = 'its upstream server is disabled';

/** The most the store takes from one source in one message (what crosses the bus), in bytes of JSON. */
const SERVED_ITEMS_MAX_BYTES = 768 * 1024;

type ServedItems = Required<Pick<RpcRequest<typeof resourceStore.putUpstreamItems>, 'prompts' | 'resources' | 'resourceTemplates' | 'skills'>>;

/** An item's key among a source's items: its kind and its name (a prompt and a tool may share a name). */
export function itemKey(kind: ItemKind, name: string): string {
  return `${kind}\u0000${name}`;
}

/** Why an item is not served, or `null` when it is. */
export function heldReason(source: StoredSource, item: UpstreamItemEntity): string | null {
  if (!source.enabled) return HELD_DISABLED;
  if (item.status === 'approved') return null;
  if (item.status === 'removed') return HELD_REMOVED;
  return item.status === 'refused' ? item.reason : HELD_CHANGED;
}

/**
 * Hands a source's approved prompts, resources, resource templates and skills to the resource store,
 * which serves them (`resourceStore.putUpstreamItems`); tools stay in the executor's catalog.
 */
@Injectable()
export class UpstreamServedItems {
  private readonly logger = new Logger(UpstreamServedItems.name);

  constructor(private readonly bus: MessageBus) {}

  /**
   * What the store serves for the source: its approved prompts, resources, templates and skills (none while it
   * is disabled or once deleted). The store refuses what collides with the tenant's own items or another
   * source's; those items become `refused`. A store that cannot be reached is logged: the next sync
   * tries again.
   */
  async hand(source: StoredSource, items: UpstreamItemEntity[], deleted = false): Promise<void> {
    const served: ServedItems = { prompts: [], resources: [], resourceTemplates: [], skills: [] };
    /** The items sent, by kind and the name the store knows them by: what its refusals name. */
    const sent = new Map<string, UpstreamItemEntity>();
    let budget = SERVED_ITEMS_MAX_BYTES;
    for (const item of items) {
      if (deleted || item.kind === 'tool' || item.approved === null || heldReason(source, item) !== null) continue;
      budget -= JSON.stringify(item.approved).length;
      if (budget < 0) {
        Object.assign(item, {
          status: 'refused',
          reason: `the source's prompts and resources pass the ${SERVED_ITEMS_MAX_BYTES} bytes served from one source`,
        });
        continue;
      }
      const exposed = exposedName(source.prefix, item.name, item.kind);
      sent.set(itemKey(item.kind, exposed), item);
      if (item.kind === 'prompt') served.prompts.push({ prompt: { ...item.approved, name: exposed } as never, upstreamName: item.name });
      else if (item.kind === 'resource') served.resources.push({ resource: item.approved as never });
      else if (item.kind === 'skill') served.skills.push({ skill: item.approved as never });
      else served.resourceTemplates.push({ resourceTemplate: { ...item.approved, name: exposed } as never, upstreamName: item.name });
    }
    try {
      const { refused } = await this.bus.request(resourceStore.putUpstreamItems, {
        tenant: source.tenant,
        sourceId: source.id,
        source: source.name,
        servers: source.servers,
        ...served,
      });
      for (const refusal of refused) {
        const item = sent.get(itemKey(refusal.kind, refusal.name));
        if (item) Object.assign(item, { status: 'refused', reason: refusal.reason });
      }
    } catch (error) {
      this.logger.warn(`upstream ${source.tenant}/${source.name}: the resource store did not take its prompts and resources: ${(error as Error).message}`);
    }
  }
}
