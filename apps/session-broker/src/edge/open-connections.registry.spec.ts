import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { OpenConnections } from './open-connections.registry';

/** A response that closes when ended or destroyed, as Node's does. */
class Response extends EventEmitter {
  ended = false;
  destroyed = false;
  end(): void {
    this.ended = true;
    this.emit('close');
  }
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

function opened(connections: OpenConnections, tenant: string, subject: string): Response {
  const response = new Response();
  connections.track(tenant, subject, response);
  return response;
}

describe(OpenConnections, () => {
  it('cuts every open connection of a tenant, and only those', () => {
    const connections = new OpenConnections();
    const [first, second, other] = [opened(connections, 'acme', 'u1'), opened(connections, 'acme', 'anonymous'), opened(connections, 'beta', 'u1')];
    expect(connections.closeTenant('acme')).toBe(2);
    expect([first.destroyed, second.destroyed, other.destroyed]).toEqual([true, true, false]);
    expect(connections.size).toBe(1);
  });

  it('cuts every open connection of a subject, whatever its tenant', () => {
    const connections = new OpenConnections();
    const [mine, theirs] = [opened(connections, 'acme', 'u1'), opened(connections, 'acme', 'u2')];
    expect(connections.closeSubject('u1')).toBe(1);
    expect([mine.destroyed, theirs.destroyed]).toEqual([true, false]);
  });

  it('forgets a connection once it closed by itself', () => {
    const connections = new OpenConnections();
    opened(connections, 'acme', 'u1').end();
    expect(connections.size).toBe(0);
    expect(connections.closeTenant('acme')).toBe(0);
  });
});
