import { describe, expect, it } from 'vitest';
import { MAX_SUBSCRIPTION_URI_LENGTH, MAX_SUBSCRIPTIONS_PER_SESSION } from './resource-subscriptions';
import { acknowledgedFilter, type HonouredFilter, MAX_TASK_IDS_PER_LISTEN, readSubscriptionFilter } from './subscription-filter';

function read(notifications: unknown): HonouredFilter {
  const filter = readSubscriptionFilter({ notifications });
  if ('invalid' in filter) throw new Error(filter.invalid);
  return filter;
}

describe('readSubscriptionFilter', () => {
  it('honours the lists asked for with true and the resource URIs, once each (S-308, S-310)', () => {
    const filter = read({ toolsListChanged: true, promptsListChanged: false, resourceSubscriptions: ['demo://a', 'demo://b', 'demo://a'] });
    expect([...filter.lists]).toEqual(['tools']);
    expect([...filter.resourceUris]).toEqual(['demo://a', 'demo://b']);
    expect(acknowledgedFilter(filter)).toEqual({ toolsListChanged: true, resourceSubscriptions: ['demo://a', 'demo://b'] });
  });

  it('acknowledges an empty filter as empty: nothing will be sent (S-309)', () => {
    expect(acknowledgedFilter(read({}))).toEqual({});
    expect(acknowledgedFilter(read({ resourcesListChanged: false, resourceSubscriptions: [] }))).toEqual({});
  });

  it('honours the task ids of the tasks extension, once each, and acknowledges them (S-304, S-310)', () => {
    const filter = read({ taskIds: ['task-a', 'task-b', 'task-a'] });
    expect([...filter.taskIds]).toEqual(['task-a', 'task-b']);
    expect(acknowledgedFilter(filter)).toEqual({ taskIds: ['task-a', 'task-b'] });
    expect(filter.lists.size + filter.resourceUris.size).toBe(0);
  });

  it('asks for no task when taskIds is absent or empty, and acknowledges none', () => {
    expect(read({ toolsListChanged: true }).taskIds.size).toBe(0);
    expect(acknowledgedFilter(read({ taskIds: [] }))).toEqual({});
  });

  it('ignores filter keys it does not know (a later revision may add some)', () => {
    expect(acknowledgedFilter(read({ resourcesListChanged: true, somethingNew: true }))).toEqual({ resourcesListChanged: true });
  });

  it.each([
    ['no notifications', undefined],
    ['a string', 'all'],
    ['an array', [true]],
    ['a flag that is not a boolean', { toolsListChanged: 'yes' }],
    ['URIs that are not a list of strings', { resourceSubscriptions: 'demo://a' }],
    ['a URI without a scheme', { resourceSubscriptions: ['not a uri'] }],
    ['a URI over the length bound', { resourceSubscriptions: [`demo://${'x'.repeat(MAX_SUBSCRIPTION_URI_LENGTH)}`] }],
    ['too many URIs', { resourceSubscriptions: Array.from({ length: MAX_SUBSCRIPTIONS_PER_SESSION + 1 }, (_, index) => `demo://r/${index}`) }],
    ['task ids that are not a list', { taskIds: 'task-a' }],
    ['a task id that is not a string', { taskIds: [7] }],
    ['an empty task id', { taskIds: [''] }],
    ['a task id over the length bound', { taskIds: ['x'.repeat(129)] }],
    ['too many task ids', { taskIds: Array.from({ length: MAX_TASK_IDS_PER_LISTEN + 1 }, (_, index) => `task-${index}`) }],
    ['URIs adding up to too much', { resourceSubscriptions: Array.from({ length: 200 }, (_, index) => `demo://${index}/${'x'.repeat(2_000)}`) }],
  ])('refuses %s with a reason', (_case, notifications) => {
    expect(readSubscriptionFilter(notifications === undefined ? {} : { notifications })).toEqual({ invalid: expect.any(String) });
  });

  it('refuses missing params', () => {
    expect(readSubscriptionFilter(undefined)).toEqual({ invalid: expect.stringContaining('params.notifications') });
  });
});
