import { Controller } from '@nestjs/common';
import { authorizationServer, type EventPayload, resourceStore, sessionBroker, taskScheduler, toolExecutor } from '@mcp-platform/protocol-contracts';
import { EventHandler } from '@mcp-platform/shared-messaging';
import { BrokerEvents } from './broker-events.service';
import { ResourceInterestReporter } from './subscriptions/resource-interest.reporter';
import { UpstreamUpdateEchoes } from './subscriptions/upstream-update-echoes';
import { TaskResultStreams } from './tasks/task-result-streams.registry';

/** Platform events every broker replica handles (delivery `all`). */
@Controller()
export class BrokerEventsNatsController {
  private readonly upstreamEchoes = new UpstreamUpdateEchoes();

  constructor(
    private readonly events: BrokerEvents,
    private readonly taskStreams: TaskResultStreams,
    private readonly interest: ResourceInterestReporter,
  ) {}

  @EventHandler(toolExecutor.catalogChanged)
  catalogChanged(payload: EventPayload<typeof toolExecutor.catalogChanged>): void {
    this.events.catalogChanged(payload.tenant, payload.servers);
  }

  @EventHandler(resourceStore.listChanged)
  resourceListsChanged(payload: EventPayload<typeof resourceStore.listChanged>): void {
    this.events.resourceListsChanged(payload.tenant, payload.servers, payload.lists);
  }

  @EventHandler(resourceStore.resourceUpdated)
  resourceUpdated(payload: EventPayload<typeof resourceStore.resourceUpdated>): void {
    this.events.resourceUpdated(payload.tenant, payload.uri);
  }

  /**
   * An upstream resource a client subscribed to changed: told like a change of the store's own (issue 15 §4),
   * once, though each executor replica subscribed upstream heard it.
   */
  @EventHandler(toolExecutor.upstreamResourceUpdated)
  upstreamResourceUpdated(payload: EventPayload<typeof toolExecutor.upstreamResourceUpdated>): void {
    if (this.upstreamEchoes.isNews(payload.tenant, payload.uri)) this.events.resourceUpdated(payload.tenant, payload.uri);
  }

  /** A tool executor started: it hears at once what this replica's clients subscribe to. */
  @EventHandler(toolExecutor.resourceInterestRequested)
  resourceInterestRequested(): void {
    this.interest.reportAll();
  }

  @EventHandler(sessionBroker.sessionClosed)
  sessionClosed(payload: EventPayload<typeof sessionBroker.sessionClosed>): void {
    this.events.sessionClosed(payload.sessionId);
  }

  @EventHandler(sessionBroker.sessionMessage)
  sessionMessage(payload: EventPayload<typeof sessionBroker.sessionMessage>): void {
    this.events.sessionMessage(payload.sessionId, payload.message);
  }

  /** A running task's request for its client: on the `tasks/result` streams this replica holds for it (S-286). */
  @EventHandler(sessionBroker.taskMessage)
  taskMessage(payload: EventPayload<typeof sessionBroker.taskMessage>): void {
    this.taskStreams.deliver(payload.taskId, payload.message);
  }

  @EventHandler(taskScheduler.taskStatusChanged)
  taskStatusChanged(payload: EventPayload<typeof taskScheduler.taskStatusChanged>): Promise<void> {
    return this.events.taskStatusChanged(payload);
  }

  @EventHandler(authorizationServer.tenantStateChanged)
  tenantStateChanged(payload: EventPayload<typeof authorizationServer.tenantStateChanged>): Promise<void> {
    return this.events.tenantStateChanged(payload);
  }

  @EventHandler(authorizationServer.accessRevoked)
  accessRevoked(payload: EventPayload<typeof authorizationServer.accessRevoked>): void {
    this.events.accessRevoked(payload);
  }

  @EventHandler(authorizationServer.signingKeysRotated)
  signingKeysRotated(payload: EventPayload<typeof authorizationServer.signingKeysRotated>): void {
    this.events.signingKeysRotated(payload.kids);
  }
}
