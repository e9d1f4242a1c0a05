import { Controller } from '@nestjs/common';
import { type EventPayload, resourceStore } from '@mcp-platform/protocol-contracts';
import { EventHandler } from '@mcp-platform/shared-messaging';
import { ResourceReadCache } from './resource-read.cache';

/**
 * Keeps every replica's read cache honest: the store's own change events (delivery `all`) drop the
 * tenant's cached reads, whichever replica wrote. The writing replica dropped them already.
 */
@Controller()
export class ResourceReadCacheNatsController {
  constructor(private readonly cache: ResourceReadCache) {}

  @EventHandler(resourceStore.resourceUpdated)
  resourceUpdated(payload: EventPayload<typeof resourceStore.resourceUpdated>): void {
    this.cache.invalidateTenant(payload.tenant);
  }

  @EventHandler(resourceStore.listChanged)
  listChanged(payload: EventPayload<typeof resourceStore.listChanged>): void {
    // A prompt list changing leaves every resource read as it was.
    if (payload.lists.includes('resources')) this.cache.invalidateTenant(payload.tenant);
  }
}
