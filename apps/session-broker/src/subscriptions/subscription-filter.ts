import { z } from 'zod';
import { type SubscriptionFilter, SubscriptionFilterSchema } from '@mcp-platform/protocol-mcp';
import { isSubscribableUri, MAX_SUBSCRIPTION_CHARACTERS, MAX_SUBSCRIPTIONS_PER_SESSION } from './resource-subscriptions';

/** The lists a listen stream can hear about, by the filter flag that asks for each (S-308). */
export const LIST_CHANGED_FLAGS = {
  tools: 'toolsListChanged',
  resources: 'resourcesListChanged',
  prompts: 'promptsListChanged',
} as const satisfies Record<string, keyof SubscriptionFilter>;

export type ListName = keyof typeof LIST_CHANGED_FLAGS;

/** The most task ids one `subscriptions/listen` may ask `notifications/tasks` for (S-304). */
export const MAX_TASK_IDS_PER_LISTEN = 100;
/** The longest task id asked for: the bound `tasks/get` holds task ids to. */
const MAX_TASK_ID_LENGTH = 128;

/**
 * The listen filter with the tasks extension's addition (`io.modelcontextprotocol/tasks`):
 * `taskIds`, the tasks whose `notifications/tasks` the client wants (S-304).
 */
const ListenFilterSchema = SubscriptionFilterSchema.extend({ taskIds: z.array(z.string()).optional() });

/** The filter as the acknowledgement reports it (S-310), `taskIds` included. */
export type AcknowledgedFilter = SubscriptionFilter & { taskIds?: string[] };

/**
 * What one `subscriptions/listen` will deliver: the lists whose changes it hears about, the resource
 * URIs whose updates it hears about and the tasks whose status changes it hears about. Everything else
 * is never sent on it (S-309).
 */
export interface HonouredFilter {
  lists: ReadonlySet<ListName>;
  resourceUris: ReadonlySet<string>;
  /** Tasks extension: `notifications/tasks` for these task ids, of the listener's own tasks only (S-289, S-304). */
  taskIds: ReadonlySet<string>;
}

/**
 * Reads the `notifications` filter of a `subscriptions/listen` request (S-308) into what we honour,
 * or a reason for `-32602`. Every notification type is supported, so the honoured filter is the
 * request's with `false` flags and repeated URIs and task ids dropped. URIs are held to the legacy
 * `resources/subscribe` rules (a scheme, bounded length and count); whether a resource exists is not
 * asked, as there (a resource may appear later). Nor is whether a task exists or whose it is: only its
 * owner ever hears of it, so the acknowledgement tells nothing of other callers' tasks.
 */
export function readSubscriptionFilter(params: Record<string, unknown> | undefined): HonouredFilter | { invalid: string } {
  const parsed = ListenFilterSchema.safeParse(params?.['notifications']);
  if (!parsed.success) return { invalid: 'params.notifications must be an object of boolean flags and resourceSubscriptions (URIs) and taskIds lists' };
  const filter = parsed.data;
  const lists = new Set<ListName>();
  for (const [list, flag] of Object.entries(LIST_CHANGED_FLAGS) as Array<[ListName, keyof SubscriptionFilter]>) {
    if (filter[flag] === true) lists.add(list);
  }
  const resourceUris = new Set(filter.resourceSubscriptions ?? []);
  if (resourceUris.size > MAX_SUBSCRIPTIONS_PER_SESSION)
    return { invalid: `at most ${MAX_SUBSCRIPTIONS_PER_SESSION} resourceSubscriptions per listen request` };
  const notUri = [...resourceUris].find((uri) => !isSubscribableUri(uri));
  if (notUri !== undefined) return { invalid: `resourceSubscriptions holds ${JSON.stringify(notUri.slice(0, 80))}, which is not a URI` };
  const characters = [...resourceUris].reduce((total, uri) => total + uri.length, 0);
  if (characters > MAX_SUBSCRIPTION_CHARACTERS) return { invalid: `resourceSubscriptions add up to more than ${MAX_SUBSCRIPTION_CHARACTERS} characters` };
  const taskIds = new Set(filter.taskIds ?? []);
  if (taskIds.size > MAX_TASK_IDS_PER_LISTEN) return { invalid: `at most ${MAX_TASK_IDS_PER_LISTEN} taskIds per listen request` };
  if ([...taskIds].some((taskId) => taskId.length === 0 || taskId.length > MAX_TASK_ID_LENGTH)) {
    return { invalid: `taskIds must be non-empty strings of at most ${MAX_TASK_ID_LENGTH} characters` };
  }
  return { lists, resourceUris, taskIds };
}

/** The honoured filter as the acknowledgement reports it (S-310): only what was asked and is honoured. */
export function acknowledgedFilter(filter: HonouredFilter): AcknowledgedFilter {
  const acknowledged: AcknowledgedFilter = {};
  for (const list of filter.lists) acknowledged[LIST_CHANGED_FLAGS[list]] = true;
  if (filter.resourceUris.size > 0) acknowledged.resourceSubscriptions = [...filter.resourceUris];
  if (filter.taskIds.size > 0) acknowledged.taskIds = [...filter.taskIds];
  return acknowledged;
}
