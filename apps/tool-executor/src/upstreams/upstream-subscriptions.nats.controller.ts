import { Controller } from '@nestjs/common';
import { type EventPayload, sessionBroker } from '@mcp-platform/protocol-contracts';
import { EventHandler } from '@mcp-platform/shared-messaging';
import { UpstreamSubscriptions } from './upstream-subscriptions.service';

/** What the broker replicas' clients subscribe to, for the upstream subscriptions (issue 15 §4). */
@Controller()
export class UpstreamSubscriptionsNatsController {
  constructor(private readonly subscriptions: UpstreamSubscriptions) {}

  @EventHandler(sessionBroker.resourceInterestReported)
  reported(payload: EventPayload<typeof sessionBroker.resourceInterestReported>): void {
    this.subscriptions.reported(payload);
  }
}
