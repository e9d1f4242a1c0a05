import { describe, expect, it } from 'vitest';
import { MemoryWorkQueue } from '@mcp-platform/shared-messaging';
import { isolatedNatsMessaging, serviceSetups } from './service-setups';

const infrastructure = { databaseUrl: 'postgres://postgres@127.0.0.1:5432/test', natsUrl: 'nats://127.0.0.1:4999' };

class MarkedWorkQueue extends MemoryWorkQueue {}

describe(isolatedNatsMessaging, () => {
  it('puts the client on the run’s bucket and subject prefixes', () => {
    expect(isolatedNatsMessaging('broker-a-r1', 'r1', infrastructure)).toEqual({
      transport: 'nats',
      servers: 'nats://127.0.0.1:4999',
      name: 'broker-a-r1',
      bucketPrefix: 'r1-',
      subjectPrefix: 'r1',
    });
  });
});

describe(serviceSetups, () => {
  it('gives NATS + PostgreSQL first, then in-process + PGlite', () => {
    expect(serviceSetups('resource-store', 'r1', { infrastructure }).map((setup) => setup.name)).toEqual(['NATS + PostgreSQL', 'in-process + PGlite']);
  });

  it('names the NATS clients after the service, the run and the replica', () => {
    const [nats] = serviceSetups('task-scheduler', 'r1', { infrastructure });
    expect(nats?.messaging()).toMatchObject({
      transport: 'nats',
      servers: infrastructure.natsUrl,
      name: 'task-scheduler-test-r1',
      bucketPrefix: 'r1-',
      subjectPrefix: 'r1',
    });
    expect(nats?.messaging('b')).toMatchObject({ name: 'task-scheduler-test-r1-b', subjectPrefix: 'r1' });
  });

  it('gives each in-process bus its own hub and the memory work queue', async () => {
    const [, inProcess] = serviceSetups('resource-store', 'r1', { infrastructure });
    const first = inProcess?.messaging('a');
    const second = inProcess?.messaging('b');
    if (first?.transport !== 'in-process' || second?.transport !== 'in-process') throw new Error('expected in-process options');
    expect(first.hub).not.toBe(second.hub);
    expect(first.workQueue).toBeInstanceOf(MemoryWorkQueue);
    await expect(inProcess?.database()).resolves.toEqual({ options: { kind: 'pglite' } });
  });

  it('puts a new work queue of the given kind on every in-process bus', () => {
    const [nats, inProcess] = serviceSetups('task-scheduler', 'r1', { infrastructure, workQueue: () => new MarkedWorkQueue() });
    const first = inProcess?.messaging();
    const second = inProcess?.messaging();
    if (first?.transport !== 'in-process' || second?.transport !== 'in-process') throw new Error('expected in-process options');
    expect(first.workQueue).toBeInstanceOf(MarkedWorkQueue);
    expect(first.workQueue).not.toBe(second.workQueue);
    expect(nats?.messaging()).not.toHaveProperty('workQueue');
  });

  it('refuses a service name that cannot name a database', () => {
    expect(() => serviceSetups('Task Scheduler', 'r1', { infrastructure })).toThrow(/not a service name/);
  });
});
