import { describe, expect, it } from 'vitest';
import { type Principal, type RpcContract, toolExecutor } from '@mcp-platform/protocol-contracts';
import { type MessageBus, RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import type { UpstreamOrigin } from '../store/store.types';
import { UpstreamCalls } from './upstream-calls';

const principal: Principal = { subject: 'alice', tenant: 't', scopes: [], anonymous: false };
const origin: UpstreamOrigin = { sourceId: '6f1c1f5e-8d1a-4a53-9a55-1a0b5a1a2b3c', source: 'files', name: 'greet' };

/** A bus whose requests are recorded and answered (or failed) by `answer`. */
function busAnswering(answer: () => Promise<unknown>) {
  const requests: Array<{ subject: string; payload: unknown; options: unknown }> = [];
  const bus = {
    request: (contract: RpcContract, payload: unknown, options: unknown) => {
      requests.push({ subject: contract.subject, payload, options });
      return answer();
    },
  } as unknown as MessageBus;
  return { bus, requests };
}

describe('UpstreamCalls', () => {
  it("asks the executor with the source's id, the upstream's name and the caller's principal", async () => {
    const { bus, requests } = busAnswering(() => Promise.resolve({ messages: [] }));
    await new UpstreamCalls(bus).getPrompt('t', origin, { who: 'Ada' }, principal);
    expect(requests).toEqual([
      {
        subject: toolExecutor.getUpstreamPrompt.subject,
        payload: { tenant: 't', sourceId: origin.sourceId, name: 'greet', arguments: { who: 'Ada' } },
        options: { context: { principal } },
      },
    ]);
  });

  it('reads a URI and answers its contents', async () => {
    const { bus, requests } = busAnswering(() => Promise.resolve({ contents: [{ uri: 'file:///a', text: 'A' }] }));
    await expect(new UpstreamCalls(bus).readResource('t', origin, 'file:///a', principal)).resolves.toEqual([{ uri: 'file:///a', text: 'A' }]);
    expect(requests[0]).toMatchObject({
      subject: toolExecutor.readUpstreamResource.subject,
      payload: { tenant: 't', sourceId: origin.sourceId, uri: 'file:///a' },
    });
  });

  it("passes the executor's errors through as they are", async () => {
    const refusal = new RpcError(WireErrorCode.InvalidParams, 'upstream said: unknown prompt', { upstream: true });
    const { bus } = busAnswering(() => Promise.reject(refusal));
    await expect(new UpstreamCalls(bus).getPrompt('t', origin, undefined, principal)).rejects.toBe(refusal);
    const unavailable = new RpcError(WireErrorCode.Unavailable, 'upstream files is not connected');
    const { bus: second } = busAnswering(() => Promise.reject(unavailable));
    await expect(new UpstreamCalls(second).readResource('t', origin, 'file:///a', principal)).rejects.toBe(unavailable);
  });

  it('turns no answer in time, or a failure of the bus, into UNAVAILABLE naming the source', async () => {
    for (const failure of [new RpcError(WireErrorCode.Timeout, 'no reply within 10000 ms'), new Error('connection closed')]) {
      const { bus } = busAnswering(() => Promise.reject(failure));
      const complete = new UpstreamCalls(bus).complete('t', origin, { type: 'ref/prompt', name: 'greet' }, { name: 'who', value: 'A' }, undefined, principal);
      await expect(complete).rejects.toMatchObject({ code: WireErrorCode.Unavailable, message: expect.stringContaining('files') });
    }
  });
});
