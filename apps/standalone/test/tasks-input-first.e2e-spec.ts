import { randomBytes } from 'node:crypto';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ErrorCodes, META_KEYS, MODERN_PROTOCOL_VERSION, modernHeaders, modernMeta, responseMessage, sendRaw, waitUntil } from '@mcp-platform/shared-testing';
import { distributedMode, embeddedMode, type Platform, type PlatformMode, seededUrls } from './platforms';

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const CAPABILITIES = { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } };
const TERMINAL: readonly string[] = ['completed', 'failed', 'cancelled'];
const ALICE = { action: 'accept', content: { name: 'Alice' } };

const TaskSchema = z.looseObject({
  taskId: z.string(),
  status: z.string(),
  result: z.looseObject({ content: z.array(z.looseObject({ text: z.string().optional() })) }).optional(),
  error: z.looseObject({ code: z.number(), message: z.string() }).optional(),
});

/**
 * A modern `tools/call` of the conformance server, raw: SDK 2.x drives input_required rounds itself but
 * refuses the `resultType: "task"` answer that ends these (its codec knows only `complete` and
 * `input_required`), so the test reads the wire; `extra` carries a retry's `inputResponses` and `requestState`.
 */
async function toolsCall(url: string, name: string, extra: Record<string, unknown> = {}, capabilities: Record<string, unknown> = CAPABILITIES) {
  const answer = await sendRaw({
    url,
    headers: modernHeaders('tools/call', name),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: randomBytes(4).readUInt32BE(),
      method: 'tools/call',
      params: { name, arguments: {}, ...extra, _meta: modernMeta({ [META_KEYS.clientCapabilities]: capabilities }) },
    }),
  });
  return { status: answer.status, message: responseMessage(answer), body: answer.body };
}

const modes: PlatformMode[] = [embeddedMode(), distributedMode(2)];

/**
 * Issue 14 §2.4 (SEP-2663 with SEP-2322, the suite's `tasks-mrtr-composition`): a tool that requires a
 * task and needs input first answers `input_required` before any task exists; the retry with the answer
 * creates the task, which runs with that answer. In the distributed mode the retry and the polling go to
 * the other broker replica than the first round.
 */
describe.each(modes)('a task that needs input before it is created, $name mode', (mode) => {
  let platform: Platform;
  let url: string;
  let otherUrl: string;
  let client: ModernClient;

  beforeAll(async () => {
    platform = await mode.boot();
    const [brokerA, brokerB] = platform.mode === 'distributed' ? platform.brokerUrls : [platform.baseUrl, platform.baseUrl];
    url = seededUrls(brokerA ?? '').conformance;
    otherUrl = seededUrls(brokerB ?? '').conformance;
    client = new ModernClient(
      { name: 'e2e-tasks-input-first', version: '1.0.0' },
      { capabilities: CAPABILITIES, versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } },
    );
    await client.connect(new ModernTransport(new URL(otherUrl)));
  });
  afterAll(async () => {
    await client?.close();
    await platform?.stop();
  });

  it('asks user_name with no task, then creates the task with the answer, and its result greets by it', async () => {
    const first = await toolsCall(url, 'test_tool_with_task');
    expect(first.status, first.body).toBe(200);
    const round = first.message?.result as Record<string, unknown> | undefined;
    expect(round).toMatchObject({
      resultType: 'input_required',
      inputRequests: { user_name: { method: 'elicitation/create' } },
      requestState: expect.any(String),
    });
    expect(round).not.toHaveProperty('taskId');

    const second = await toolsCall(otherUrl, 'test_tool_with_task', { inputResponses: { user_name: ALICE }, requestState: round?.['requestState'] });
    expect(second.status, second.body).toBe(200);
    const created = second.message?.result as Record<string, unknown> | undefined;
    expect(created).toMatchObject({ resultType: 'task', taskId: expect.any(String), status: 'working' });
    expect(created).not.toHaveProperty('requestState');
    expect(created).not.toHaveProperty('inputRequests');

    const taskId = String(created?.['taskId']);
    const done = await waitUntil(
      async () => {
        const task = await client.request({ method: 'tasks/get', params: { taskId } }, TaskSchema);
        return TERMINAL.includes(task.status) ? task : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, description: 'the test_tool_with_task task to end' },
    );
    expect(done).toMatchObject({ status: 'completed' });
    expect(done.result?.content[0]?.text).toBe('Hello, Alice! (from the task)');
  });

  it('refuses a malformed answer with -32602 and a client without elicitation with -32021, creating no task', async () => {
    const first = await toolsCall(url, 'test_tool_with_task');
    const requestState = (first.message?.result as Record<string, unknown> | undefined)?.['requestState'];
    const malformed = await toolsCall(otherUrl, 'test_tool_with_task', { inputResponses: { user_name: 12345 }, requestState });
    expect(malformed.message?.error).toMatchObject({ code: ErrorCodes.InvalidParams });
    const unable = await toolsCall(url, 'test_tool_with_task', {}, { extensions: { [TASKS_EXTENSION]: {} } });
    expect(unable.message?.error).toMatchObject({ code: ErrorCodes.MissingRequiredClientCapability, data: { requiredCapabilities: { elicitation: {} } } });
  });

  it('ends a task whose tool fails at the protocol level failed with -32603, and a tool error completed with isError', async () => {
    const ids: Record<string, string> = {};
    for (const name of ['protocol_error_job', 'failing_job']) {
      const created = await toolsCall(url, name);
      expect(created.message?.result, created.body).toMatchObject({ resultType: 'task' });
      ids[name] = String((created.message?.result as Record<string, unknown>)['taskId']);
    }
    const ended = (taskId: string) =>
      waitUntil(
        async () => {
          const task = await client.request({ method: 'tasks/get', params: { taskId } }, TaskSchema);
          return TERMINAL.includes(task.status) ? task : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200, description: `task ${taskId} to end` },
      );
    const broken = await ended(ids['protocol_error_job'] ?? '');
    expect(broken).toMatchObject({ status: 'failed', error: { code: ErrorCodes.InternalError } });
    expect(broken.result).toBeUndefined();
    await expect(ended(ids['failing_job'] ?? '')).resolves.toMatchObject({ status: 'completed', result: { isError: true } });
  });
});
