import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Principal, type RpcRequest, type RpcResponse, toolExecutor, WireErrorCode } from '@mcp-platform/protocol-contracts';
import { MessageBus } from '@mcp-platform/shared-messaging';
import {
  LEGACY_TASKS_UPSTREAM_TOOLS,
  type LegacyTasksUpstream,
  serviceSetups,
  startLegacyTasksUpstream,
  startTasksUpstream,
  TASKS_UPSTREAM_TOOLS,
  type TasksUpstream,
  toolResultText,
} from '@mcp-platform/shared-testing';
import { bootUpstreamExecutor, resultOf } from './executor-calls';

const run = `ut${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const TENANT = 'demo';
const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
/** The legacy upstream's tools in the catalog: `old__<name>`. */
const old = (name: string) => `old__${name}`;
const admin: Principal = { subject: 'admin-of-demo', tenant: TENANT, clientId: 'test-client', scopes: ['mcp'], anonymous: false };
const as = { context: { principal: admin } };
const setups = serviceSetups('tool-executor', run);

type CallAnswer = RpcResponse<typeof toolExecutor.callTool>;

/**
 * Issue 15 §4 "tasks": upstream tools of a 2026-07-28 upstream that declares the tasks extension run as
 * platform tasks (what the executor answers the broker's offer, then each run of the task as its worker
 * makes it), following the upstream's own task.
 */
describe.each(setups)('upstream tasks over $name', (setup) => {
  let app: INestApplication;
  let bus: MessageBus;
  let drop: (() => Promise<void>) | undefined;
  let upstream: TasksUpstream;
  let legacyUpstream: LegacyTasksUpstream;

  const call = (name: string, extra: Partial<RpcRequest<typeof toolExecutor.callTool>> = {}, args: Record<string, unknown> = {}): Promise<CallAnswer> =>
    bus.request(
      toolExecutor.callTool,
      {
        tenant: TENANT,
        server: 'default',
        callId: `m-${randomUUID()}`,
        name,
        arguments: args,
        protocolVersion: MODERN,
        clientCapabilities: { elicitation: { form: {} } },
        ...extra,
      },
      as,
    );
  /** The broker's offer: a task the upstream created comes back as runAsTask carrying its id. */
  const offer = async (name: string, args: Record<string, unknown> = {}) => {
    const answer = await call(name, { taskMode: 'offer' }, args);
    if (!toolExecutor.isCallRunAsTask(answer)) throw new Error(`expected runAsTask, got ${JSON.stringify(answer)}`);
    if (answer.upstreamTask === undefined) throw new Error(`expected the upstream's task, got ${JSON.stringify(answer)}`);
    return answer.upstreamTask;
  };

  beforeAll(async () => {
    const database = await setup.database();
    drop = database.drop;
    app = await bootUpstreamExecutor(setup.messaging(), database.options);
    bus = app.get(MessageBus);
    upstream = await startTasksUpstream();
    legacyUpstream = await startLegacyTasksUpstream();
    const { upstream: view } = await bus.request(
      toolExecutor.putUpstream,
      { tenant: TENANT, upstream: { name: 'tasky', prefix: null, policy: 'approve-all', connection: { transport: 'streamable-http', url: upstream.url } } },
      as,
    );
    expect(view.health, JSON.stringify(view.health)).toMatchObject({ state: 'connected', era: 'modern' });
    const { upstream: legacyView } = await bus.request(
      toolExecutor.putUpstream,
      {
        tenant: TENANT,
        upstream: { name: 'oldtasks', prefix: 'old', policy: 'approve-all', connection: { transport: 'streamable-http', url: legacyUpstream.url } },
      },
      as,
    );
    expect(legacyView.health, JSON.stringify(legacyView.health)).toMatchObject({ state: 'connected', era: 'legacy' });
    const server = await bus.request(toolExecutor.getServerDefinition, { tenant: TENANT, name: 'default' }, as);
    const added = [...TASKS_UPSTREAM_TOOLS, ...LEGACY_TASKS_UPSTREAM_TOOLS.map(old)];
    await bus.request(toolExecutor.putServerDefinition, { tenant: TENANT, server: { ...server, tools: [...new Set([...server.tools, ...added])] } }, as);
  });

  afterAll(async () => {
    await app?.close();
    await upstream?.close();
    await legacyUpstream?.close();
    await drop?.();
  });

  it('lets the task path admit the tools of an upstream that decides on tasks (a modern tools/list names no task support)', async () => {
    await expect(bus.request(toolExecutor.describeToolCall, { tenant: TENANT, server: 'default', name: 'long_job' }, as)).resolves.toMatchObject({
      taskSupport: 'optional',
    });
  });

  it('answers an offered call at once when the upstream made no task of it', async () => {
    expect(toolResultText(await resultOf(call('report', { taskMode: 'offer' })))).toBe('report ready');
  });

  it("creates a task for an upstream task, follows it while it works, and ends with the upstream task's result", async () => {
    const upstreamTask = await offer('long_job', { ms: 600 });
    expect(upstream.tasks.get(upstreamTask.taskId)?.status).toBe('working');
    const result = await resultOf(call('long_job', { taskMode: 'task', upstreamTask }, { ms: 600 }));
    expect(toolResultText(result)).toBe('long_job done');
    // The run followed the upstream's task, polling it, and made no second call.
    expect(upstream.methods.filter((method) => method === 'tasks/get').length).toBeGreaterThan(1);
    expect(upstream.tasks.size).toBe(1);
  });

  it("cancels the upstream's task when the platform task's run is cancelled", async () => {
    const upstreamTask = await offer('long_job', { ms: 60_000 });
    const callId = `t-${randomUUID()}`;
    const running = call('long_job', { taskMode: 'task', upstreamTask, callId }, { ms: 60_000 }).catch((error: unknown) => error);
    await expect.poll(() => upstream.methods.filter((method) => method === 'tasks/get').length, { timeout: 5_000 }).toBeGreaterThan(2);
    bus.emit(toolExecutor.callCancelled, { callId, reason: 'task cancelled' });
    await expect(running).resolves.toMatchObject({ code: WireErrorCode.Cancelled });
    await expect.poll(() => upstream.tasks.get(upstreamTask.taskId)?.status, { timeout: 5_000 }).toBe('cancelled');
  });

  it("asks the caller what the upstream's task asks, and passes the answer on with tasks/update", async () => {
    const upstreamTask = await offer('ask_job');
    const first = await call('ask_job', { taskMode: 'task', upstreamTask });
    if (!toolExecutor.isCallInputRequired(first)) throw new Error(`expected input requests, got ${JSON.stringify(first)}`);
    expect(first.inputRequired.inputRequests['colour']).toMatchObject({ method: 'elicitation/create', params: { message: 'Which colour?' } });
    expect(upstream.tasks.get(upstreamTask.taskId)?.status).toBe('input_required');
    const answered = { colour: { action: 'accept', content: { colour: 'teal' } } };
    expect(toolResultText(await resultOf(call('ask_job', { taskMode: 'task', upstreamTask, inputResponses: answered })))).toBe('colour: teal');
    expect(upstream.tasks.get(upstreamTask.taskId)?.updates).toEqual([{ colour: { action: 'accept', content: { colour: 'teal' } } }]);
  });

  it('refuses a plain modern call of a tool the upstream runs only as a task with -32021, as for a built-in', async () => {
    await expect(call('must_task')).rejects.toMatchObject({
      code: WireErrorCode.MissingClientCapability,
      data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    });
  });

  it("follows the upstream's task in a task's run that carries none (a legacy caller's task)", async () => {
    const before = upstream.tasks.size;
    const legacy = { taskMode: 'task' as const, protocolVersion: '2025-11-25', clientCapabilities: {} };
    expect(toolResultText(await resultOf(call('long_job', legacy, { ms: 200 })))).toBe('long_job done');
    expect(upstream.tasks.size).toBe(before + 1);
  });

  it('refuses a legacy plain call of a tool the upstream runs only as a task, as for a built-in (-32601)', async () => {
    await expect(call('must_task', { protocolVersion: '2025-11-25', clientCapabilities: {} })).rejects.toMatchObject({ code: WireErrorCode.Unsupported });
  });
  describe('of a 2025-11-25 upstream with core tasks', () => {
    const legacyCaller = { protocolVersion: LEGACY, clientCapabilities: {} };
    const count = (method: string) => legacyUpstream.methods.filter((seen) => seen === method).length;

    it("takes each tool's task support from the upstream's list", async () => {
      const describe = (name: string) => bus.request(toolExecutor.describeToolCall, { tenant: TENANT, server: 'default', name }, as);
      await expect(describe(old('long_job'))).resolves.toMatchObject({ taskSupport: 'optional' });
      await expect(describe(old('must_task'))).resolves.toMatchObject({ taskSupport: 'required' });
      await expect(describe(old('report'))).resolves.toMatchObject({ taskSupport: 'forbidden' });
    });

    it("makes a modern offer the upstream's task (params.task with a ttl), and follows it to its result", async () => {
      const upstreamTask = await offer(old('long_job'), { ms: 500 });
      expect(legacyUpstream.taskIds).toContain(upstreamTask.taskId);
      expect(legacyUpstream.taskRequests.at(-1)).toMatchObject({ tool: 'long_job', ttl: expect.any(Number) });
      await expect(legacyUpstream.status(upstreamTask.taskId)).resolves.toBe('working');
      const polls = count('tasks/get');
      const result = await resultOf(call(old('long_job'), { taskMode: 'task', upstreamTask }, { ms: 500 }));
      expect(toolResultText(result)).toBe('long_job done');
      // The run polled the upstream's task, fetched its result with tasks/result, and made no second call.
      expect(count('tasks/get') - polls).toBeGreaterThan(1);
      expect(count('tasks/result')).toBeGreaterThan(0);
      expect(legacyUpstream.taskIds.filter((id) => id === upstreamTask.taskId)).toHaveLength(1);
    });

    it("follows the upstream's task in a legacy caller's task run that carries none", async () => {
      const before = legacyUpstream.taskIds.length;
      expect(toolResultText(await resultOf(call(old('long_job'), { taskMode: 'task', ...legacyCaller }, { ms: 200 })))).toBe('long_job done');
      expect(legacyUpstream.taskIds).toHaveLength(before + 1);
    });

    it("cancels the upstream's task with tasks/cancel when the platform task's run is cancelled", async () => {
      const upstreamTask = await offer(old('long_job'), { ms: 60_000 });
      const callId = `t-${randomUUID()}`;
      const running = call(old('long_job'), { taskMode: 'task', upstreamTask, callId }, { ms: 60_000 }).catch((error: unknown) => error);
      const polls = count('tasks/get');
      await expect.poll(() => count('tasks/get') - polls, { timeout: 5_000 }).toBeGreaterThan(1);
      bus.emit(toolExecutor.callCancelled, { callId, reason: 'task cancelled' });
      await expect(running).resolves.toMatchObject({ code: WireErrorCode.Cancelled });
      await expect.poll(() => legacyUpstream.status(upstreamTask.taskId), { timeout: 5_000 }).toBe('cancelled');
    });

    it("asks a modern caller what the upstream's task asks, and answers the upstream in the task's next run", async () => {
      const upstreamTask = await offer(old('ask_job'));
      const first = await call(old('ask_job'), { taskMode: 'task', upstreamTask });
      if (!toolExecutor.isCallInputRequired(first)) throw new Error(`expected input requests, got ${JSON.stringify(first)}`);
      const [[key, request]] = Object.entries(first.inputRequired.inputRequests) as [[string, { method: string; params?: Record<string, unknown> }]];
      expect(request).toMatchObject({ method: 'elicitation/create', params: { message: 'Which colour?' } });
      // The upstream's own task id stays the platform's business.
      expect(JSON.stringify(request)).not.toContain(upstreamTask.taskId);
      await expect(legacyUpstream.status(upstreamTask.taskId)).resolves.toBe('input_required');
      const inputResponses = { [key]: { action: 'accept', content: { colour: 'teal' } } };
      expect(toolResultText(await resultOf(call(old('ask_job'), { taskMode: 'task', upstreamTask, inputResponses })))).toBe('colour: teal');
    });

    it('refuses a plain call of a tool the upstream runs only as a task, as for a built-in (modern -32021, legacy -32601)', async () => {
      await expect(call(old('must_task'))).rejects.toMatchObject({ code: WireErrorCode.MissingClientCapability });
      await expect(call(old('must_task'), legacyCaller)).rejects.toMatchObject({ code: WireErrorCode.Unsupported });
      // A task's run of it is the upstream's task.
      expect(toolResultText(await resultOf(call(old('must_task'), { taskMode: 'task', ...legacyCaller })))).toBe('must_task done');
    });

    it('calls a tool without task support plainly, even offered as a task', async () => {
      expect(toolResultText(await resultOf(call(old('report'), { taskMode: 'offer' })))).toBe('report ready');
    });

    it('cancels an upstream task no platform task follows (upstreamTaskAbandoned)', async () => {
      const upstreamTask = await offer(old('long_job'), { ms: 60_000 });
      bus.emit(toolExecutor.upstreamTaskAbandoned, { tenant: TENANT, server: 'default', name: old('long_job'), upstreamTask, reason: 'test' });
      await expect.poll(() => legacyUpstream.status(upstreamTask.taskId), { timeout: 5_000 }).toBe('cancelled');
    });
  });

  it('cancels a modern upstream task no platform task follows (upstreamTaskAbandoned)', async () => {
    const upstreamTask = await offer('long_job', { ms: 60_000 });
    bus.emit(toolExecutor.upstreamTaskAbandoned, { tenant: TENANT, server: 'default', name: 'long_job', upstreamTask });
    await expect.poll(() => upstream.tasks.get(upstreamTask.taskId)?.status, { timeout: 5_000 }).toBe('cancelled');
  });
});
