import { describe, expect, it } from 'vitest';
import { resourceStore, toolExecutor } from '@mcp-platform/protocol-contracts';
import { type MessageBus, RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import { fakeContext } from '../../test/fake-tool-context';
import { conformanceTriggerTools } from './conformance-triggers.tools';

/** A bus holding one dynamic tool and maybe the dynamic prompt, recording every write. */
function fakeBus(promptPresent: boolean) {
  const writes: Array<[string, unknown]> = [];
  let description = 'A tool whose definition test_trigger_tool_change rewrites';
  const bus = {
    request: async (contract: { subject: string }, request: Record<string, unknown>) => {
      switch (contract.subject) {
        case toolExecutor.getToolDefinition.subject:
          return {
            name: 'test_dynamic_tool',
            description,
            inputSchema: { type: 'object' },
            kind: 'builtin',
            config: { handler: 'conformance.test_dynamic_tool' },
            lastError: { kind: 'status' },
          };
        case toolExecutor.putToolDefinition.subject:
          description = String((request['tool'] as Record<string, unknown>)['description']);
          break;
        case resourceStore.getPromptDefinition.subject:
          if (!promptPresent) throw new RpcError(WireErrorCode.NotFound, 'Prompt test_dynamic_prompt not found');
          return {};
      }
      writes.push([contract.subject, request]);
      return {};
    },
  } as unknown as MessageBus;
  return { bus, writes };
}

const run = (bus: MessageBus, name: string) => {
  const fixture = conformanceTriggerTools(bus).find((candidate) => candidate.definition.name === name);
  if (!fixture) throw new Error(name);
  return fixture.run({}, fakeContext().context);
};

describe('conformance list-change triggers', () => {
  it('test_trigger_tool_change rewrites the dynamic tool through the admin contract, alternating its description', async () => {
    const { bus, writes } = fakeBus(false);
    await run(bus, 'test_trigger_tool_change');
    await run(bus, 'test_trigger_tool_change');
    const descriptions = writes.map(([, request]) => (request as { tool: { description: string } }).tool.description);
    expect(writes.map(([subject]) => subject)).toEqual([toolExecutor.putToolDefinition.subject, toolExecutor.putToolDefinition.subject]);
    expect(descriptions).toEqual(['A tool whose definition test_trigger_tool_change rewrote', 'A tool whose definition test_trigger_tool_change rewrites']);
    // What the admin view adds (the last outbound error) is not written back.
    expect(writes[0]?.[1]).toMatchObject({ tenant: 'conformance', tool: { name: 'test_dynamic_tool', kind: 'builtin' } });
    expect((writes[0]?.[1] as { tool: object }).tool).not.toHaveProperty('lastError');
  });

  it('test_trigger_prompt_change adds the dynamic prompt when absent and removes it when present', async () => {
    const absent = fakeBus(false);
    await expect(run(absent.bus, 'test_trigger_prompt_change')).resolves.toEqual({
      content: [{ type: 'text', text: 'Changed the prompt list: added test_dynamic_prompt' }],
    });
    expect(absent.writes).toEqual([
      [
        resourceStore.putPromptDefinition.subject,
        expect.objectContaining({ tenant: 'conformance', prompt: expect.objectContaining({ name: 'test_dynamic_prompt', servers: ['everything'] }) }),
      ],
    ]);
    const present = fakeBus(true);
    await run(present.bus, 'test_trigger_prompt_change');
    expect(present.writes).toEqual([[resourceStore.deletePromptDefinition.subject, { tenant: 'conformance', name: 'test_dynamic_prompt' }]]);
  });
});
