import { resourceStore, toolExecutor } from '@mcp-platform/protocol-contracts';
import { isRpcError, type MessageBus, WireErrorCode } from '@mcp-platform/shared-messaging';
import { type BuiltinTool, NO_ARGUMENTS, textResult } from './builtin-tool';

const TENANT = 'conformance';
const SERVER = 'everything';
const DYNAMIC_TOOL = 'test_dynamic_tool';
const DYNAMIC_PROMPT = 'test_dynamic_prompt';
/** The two descriptions the dynamic tool alternates between, one per trigger. */
const DYNAMIC_TOOL_DESCRIPTIONS = ['A tool whose definition test_trigger_tool_change rewrites', 'A tool whose definition test_trigger_tool_change rewrote'];

/**
 * The suite's list-change hooks (SEP-2575, "Dynamic list mutations"): each call changes a list of
 * `conformance/everything` through the same admin contracts an administrator's write takes, so what
 * follows is the platform's own path: the owner publishes the change, every broker replica tells its
 * listeners (`notifications/tools/list_changed`, `…/prompts/list_changed`, S-191, S-223). They touch only
 * the two fixtures named here, of the conformance tenant.
 */
export function conformanceTriggerTools(bus: MessageBus): BuiltinTool[] {
  return [
    {
      handler: 'conformance.test_dynamic_tool',
      definition: { name: DYNAMIC_TOOL, description: DYNAMIC_TOOL_DESCRIPTIONS[0] ?? '', inputSchema: { ...NO_ARGUMENTS } },
      run: async () => textResult('The dynamic tool ran'),
    },
    {
      handler: 'conformance.test_trigger_tool_change',
      definition: {
        name: 'test_trigger_tool_change',
        description: `Changes the tool list: rewrites the description of ${DYNAMIC_TOOL}`,
        inputSchema: { ...NO_ARGUMENTS },
      },
      run: async () => {
        const { lastError: _lastError, held: _held, ...tool } = await bus.request(toolExecutor.getToolDefinition, { tenant: TENANT, name: DYNAMIC_TOOL });
        if (tool.kind === 'upstream') throw new Error(`${DYNAMIC_TOOL} is not a tool of this executor`);
        const description = tool.description === DYNAMIC_TOOL_DESCRIPTIONS[0] ? DYNAMIC_TOOL_DESCRIPTIONS[1] : DYNAMIC_TOOL_DESCRIPTIONS[0];
        await bus.request(toolExecutor.putToolDefinition, { tenant: TENANT, tool: { ...tool, description } });
        return textResult(`Changed the tool list: ${DYNAMIC_TOOL} now reads "${description}"`);
      },
    },
    {
      handler: 'conformance.test_trigger_prompt_change',
      definition: {
        name: 'test_trigger_prompt_change',
        description: `Changes the prompt list: adds ${DYNAMIC_PROMPT}, or removes it when present`,
        inputSchema: { ...NO_ARGUMENTS },
      },
      run: async () => {
        if (await promptExists(bus)) {
          await bus.request(resourceStore.deletePromptDefinition, { tenant: TENANT, name: DYNAMIC_PROMPT });
          return textResult(`Changed the prompt list: removed ${DYNAMIC_PROMPT}`);
        }
        await bus.request(resourceStore.putPromptDefinition, {
          tenant: TENANT,
          prompt: {
            name: DYNAMIC_PROMPT,
            description: 'A prompt test_trigger_prompt_change adds and removes',
            messages: [{ role: 'user', content: { type: 'text', text: 'This prompt comes and goes.' } }],
            servers: [SERVER],
          },
        });
        return textResult(`Changed the prompt list: added ${DYNAMIC_PROMPT}`);
      },
    },
  ];
}

async function promptExists(bus: MessageBus): Promise<boolean> {
  try {
    await bus.request(resourceStore.getPromptDefinition, { tenant: TENANT, name: DYNAMIC_PROMPT });
    return true;
  } catch (error) {
    if (isRpcError(error) && error.code === WireErrorCode.NotFound) return false;
    throw error;
  }
}
