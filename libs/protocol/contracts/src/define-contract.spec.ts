import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineEvent, defineRpc, type EventContract, routedSubject, type RpcContract, SUBJECT_PATTERN } from './define-contract';
import * as contracts from './index';

function allContracts(): Array<RpcContract | EventContract> {
  const found: Array<RpcContract | EventContract> = [];
  const visit = (value: unknown): void => {
    if (value && typeof value === 'object') {
      const kind = (value as { kind?: unknown }).kind;
      if ((kind === 'rpc' || kind === 'event') && typeof (value as { subject?: unknown }).subject === 'string') {
        found.push(value as RpcContract | EventContract);
        return;
      }
      if (!('parse' in value)) for (const child of Object.values(value)) visit(child);
    }
  };
  for (const [name, value] of Object.entries(contracts)) if (name !== 'WireErrorCode' && name !== 'MessageHeader') visit(value);
  return found;
}

describe('contracts', () => {
  const all = allContracts();

  it('finds the contracts it checks', () => {
    expect(all.length).toBeGreaterThanOrEqual(7);
  });

  it('gives every subject the grammar <app>.v<major>.<entity>.<verb>', () => {
    for (const contract of all) expect(contract.subject, contract.subject).toMatch(SUBJECT_PATTERN);
  });

  it('names an app of the platform first in every subject', () => {
    const apps = ['authorization-server', 'session-broker', 'tool-executor', 'resource-store', 'task-scheduler'];
    for (const contract of all) expect(apps, contract.subject).toContain(contract.subject.split('.')[0]);
  });

  it('never uses one subject twice', () => {
    const subjects = all.map((contract) => contract.subject);
    expect(new Set(subjects).size).toBe(subjects.length);
  });

  it('uses past participles for events and verbs for requests', () => {
    for (const contract of all) {
      const last = contract.subject.split('.').at(-1) ?? '';
      if (contract.kind === 'event') expect(last, contract.subject).toMatch(/ed$/);
      else expect(last, contract.subject).not.toMatch(/ed$/);
    }
  });
});

describe('routedSubject', () => {
  const routed = defineEvent({ subject: 'session-broker.v1.thing.happened', delivery: 'routed', payload: z.object({}) });

  it('appends the route token to the subject', () => {
    expect(routedSubject(routed, 'broker-1')).toBe('session-broker.v1.thing.happened.broker-1');
  });

  it('refuses a route that would add subject tokens or wildcards', () => {
    expect(() => routedSubject(routed, 'a.b')).toThrow();
    expect(() => routedSubject(routed, '>')).toThrow();
  });

  it('refuses to route an event that is not routed', () => {
    const broadcast = defineEvent({ subject: 'session-broker.v1.other.happened', delivery: 'all', payload: z.object({}) });
    expect(() => routedSubject(broadcast, 'x')).toThrow();
  });
});

describe('defineRpc', () => {
  it('defaults the deadline', () => {
    const rpc = defineRpc({ subject: 'tool-executor.v1.x.get', request: z.object({}), response: z.object({}) });
    expect(rpc.timeoutMs).toBeGreaterThan(0);
  });
});
