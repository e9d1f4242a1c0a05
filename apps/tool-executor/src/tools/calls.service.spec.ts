import { describe, expect, it } from 'vitest';
import { type Principal, sessionBroker, toolExecutor, WireErrorCode } from '@mcp-platform/protocol-contracts';
import { type CallToolResult, readParamHeaderDeclarations } from '@mcp-platform/protocol-mcp';
import { ManualClock } from '@mcp-platform/shared-clock';
import { MemoryEventLog, type MessageBus } from '@mcp-platform/shared-messaging';
import type { BeforeTaskInput } from '../builtin/builtin-tool';
import type { CatalogService, PreparedTool, ServerSnapshot } from '../catalog/catalog.service';
import { compileSchema } from '../catalog/schema-validator';
import type { HttpToolRunner } from '../http-tools/http-tool.runner';
import type { UpstreamToolRunner } from '../upstreams/upstream-tool.runner';
import { CallsService } from './calls.service';
import { AsksClient, ClientCapabilityMissing, type ToolImplementation, ToolProtocolFailure } from './tool-context';

function tool(
  name: string,
  implementation: ToolImplementation,
  options: {
    outputSchema?: Record<string, unknown>;
    timeoutMs?: number;
    requiredScopes?: string[];
    taskSupport?: toolExecutor.TaskSupport;
    annotations?: Record<string, unknown>;
    beforeTask?: BeforeTaskInput[];
    inputSchema?: Record<string, unknown>;
  } = {},
): PreparedTool {
  const inputSchema = options.inputSchema ?? { type: 'object', properties: { n: { type: 'number' } }, additionalProperties: false };
  const paramHeaders = readParamHeaderDeclarations(inputSchema);
  if (!paramHeaders.ok) throw new Error(paramHeaders.reason);
  return {
    record: {
      id: name,
      tenant: 't',
      name,
      description: name,
      inputSchema,
      ...(options.outputSchema ? { outputSchema: options.outputSchema } : {}),
      ...(options.annotations ? { annotations: options.annotations } : {}),
      kind: 'builtin',
      config: { handler: name },
      timeoutMs: options.timeoutMs ?? 1_000,
      enabled: true,
      requiredScopes: options.requiredScopes ?? [],
      taskSupport: options.taskSupport ?? 'forbidden',
      updatedAt: new Date(0),
    },
    wire: { name, inputSchema: { type: 'object' } },
    input: compileSchema(inputSchema, 'inputSchema'),
    ...(options.outputSchema ? { output: compileSchema(options.outputSchema, 'outputSchema') } : {}),
    paramHeaders: paramHeaders.declarations,
    runner: { kind: 'builtin', implementation, ...(options.beforeTask ? { beforeTask: options.beforeTask } : {}) },
  };
}

/** A signed-in user of tenant `t` with the baseline scope only. */
const member: Principal = { subject: 'user-1', tenant: 't', clientId: 'client-1', scopes: ['mcp'], anonymous: false };

/** `null`: the request carries no principal. */
function setup(tools: PreparedTool[], principal: Principal | null = member) {
  const snapshot: ServerSnapshot = {
    server: { tenant: 't', name: 's', public: false, scopes: ['mcp'] },
    tools,
    byName: new Map(tools.map((entry) => [entry.wire.name, entry])),
    held: new Map(),
  };
  const catalog = { getServer: (tenant: string, server: string) => (tenant === 't' && server === 's' ? snapshot : undefined) } as unknown as CatalogService;
  const emitted: unknown[] = [];
  /** Every event with its subject and route, in order. */
  const events: Array<{ subject: string; payload: unknown; route?: string }> = [];
  let flushes = 0;
  const bus = {
    emit: (contract: { subject: string }, payload: unknown, options?: { route?: string }) => {
      emitted.push(payload);
      events.push({ subject: contract.subject, payload, ...(options?.route === undefined ? {} : { route: options.route }) });
    },
    flush: async () => void flushes++,
  } as unknown as MessageBus;
  const clock = new ManualClock(0);
  const eventLog = new MemoryEventLog();
  const service = new CallsService(catalog, {} as HttpToolRunner, {} as UpstreamToolRunner, bus, eventLog, clock);
  const call = async (name: string, args?: Record<string, unknown>, callId = 'call-1'): Promise<CallToolResult> => {
    const answer = await service.call(
      {
        tenant: 't',
        server: 's',
        callId,
        name,
        protocolVersion: '2025-11-25',
        ...(args ? { arguments: args } : {}),
        notify: { route: 'r', progressToken: 'p-1' },
      },
      principal ?? undefined,
    );
    if (toolExecutor.isCallInputRequired(answer) || toolExecutor.isCallRunAsTask(answer)) throw new Error(`a legacy call answered ${JSON.stringify(answer)}`);
    return answer;
  };
  /** A modern call (2026-07-28): the client's capabilities and the answers of earlier rounds come with it. */
  const callModern = (name: string, capabilities: Record<string, unknown>, inputResponses?: Record<string, unknown>) =>
    service.call(
      {
        tenant: 't',
        server: 's',
        callId: `m-${name}`,
        name,
        protocolVersion: '2026-07-28',
        clientCapabilities: capabilities,
        ...(inputResponses ? { inputResponses } : {}),
      },
      principal ?? undefined,
    );
  /** A legacy call of session `sessionId` whose client declared `capabilities` at initialize. */
  const callInSession = (name: string, sessionId: string, capabilities: Record<string, unknown>, callId: string, args?: Record<string, unknown>) =>
    service.call(
      {
        tenant: 't',
        server: 's',
        callId,
        name,
        protocolVersion: '2025-11-25',
        ...(args ? { arguments: args } : {}),
        notify: { route: 'r' },
        sessionId,
        clientCapabilities: capabilities,
      },
      principal ?? undefined,
    );
  /** A modern call as the broker or a task's worker sends it: `taskMode` says how it relates to tasks. */
  const callInMode = (name: string, taskMode: 'task' | 'offer' | undefined, args: Record<string, unknown> = {}) =>
    service.call(
      { tenant: 't', server: 's', callId: `k-${name}`, name, protocolVersion: '2026-07-28', arguments: args, ...(taskMode ? { taskMode } : {}) },
      principal ?? undefined,
    );
  /** A modern call with the `Mcp-Param-*` headers the broker collected (by lowercase name after the prefix). */
  const callWithHeaders = (name: string, args: Record<string, unknown>, paramHeaders: Record<string, string>, taskMode?: 'offer') =>
    service.call(
      { tenant: 't', server: 's', callId: `h-${name}`, name, protocolVersion: '2026-07-28', arguments: args, paramHeaders, ...(taskMode ? { taskMode } : {}) },
      principal ?? undefined,
    );
  return { service, clock, eventLog, call, callModern, callInSession, callInMode, callWithHeaders, emitted, events, flushes: () => flushes };
}

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe(CallsService, () => {
  describe('call', () => {
    it('passes {} to a tool when arguments are absent', async () => {
      let received: unknown;
      const { call } = setup([tool('echo', async (args) => ((received = args), text('ok')))]);
      await expect(call('echo')).resolves.toEqual(text('ok'));
      expect(received).toEqual({});
    });

    it('flushes the bus before replying when the call sent notifications, and only then', async () => {
      const { call, flushes } = setup([tool('quiet', async () => text('ok')), tool('chatty', async (_args, context) => (context.progress(1), text('ok')))]);
      await call('quiet', {});
      expect(flushes()).toBe(0);
      await call('chatty', {});
      expect(flushes()).toBe(1);
    });

    it('answers INVALID_PARAMS for a tool the server does not expose', async () => {
      const { call } = setup([]);
      await expect(call('ghost', {})).rejects.toMatchObject({ code: WireErrorCode.InvalidParams, message: 'Unknown tool: ghost' });
    });

    it('answers FORBIDDEN to a principal of another tenant, before looking at the server', async () => {
      let ran = false;
      const { call } = setup([tool('echo', async () => ((ran = true), text('ok')))], { ...member, tenant: 'other' });
      await expect(call('echo', {})).rejects.toMatchObject({ code: WireErrorCode.Forbidden });
      expect(ran).toBe(false);
    });

    it('answers FORBIDDEN when the request carries no principal', async () => {
      const { call } = setup([tool('echo', async () => text('ok'))], null);
      await expect(call('echo', {})).rejects.toMatchObject({ code: WireErrorCode.Forbidden });
    });

    it('answers INSUFFICIENT_SCOPE with every scope the tool needs, and does not run it', async () => {
      let ran = false;
      const { call } = setup([tool('hash', async () => ((ran = true), text('ok')), { requiredScopes: ['demo:crypto', 'demo:files'] })], {
        ...member,
        scopes: ['mcp', 'demo:files'],
      });
      const error: unknown = await call('hash', {}).catch((caught: unknown) => caught);
      expect(error).toMatchObject({
        code: WireErrorCode.InsufficientScope,
        message: 'Tool hash requires scope demo:crypto',
        data: { scopes: ['mcp', 'demo:crypto', 'demo:files'] },
      });
      expect(ran).toBe(false);
    });

    it('runs a scoped tool for a principal holding a broader scope (S-144)', async () => {
      const { call } = setup([tool('hash', async () => text('ok'), { requiredScopes: ['demo:crypto'] })], { ...member, scopes: ['mcp', 'demo'] });
      await expect(call('hash', {})).resolves.toEqual(text('ok'));
    });

    it('gives an anonymous principal only the tools that require no scope', async () => {
      const anonymous: Principal = { subject: 'anonymous', tenant: 't', scopes: [], anonymous: true };
      const { call } = setup([tool('open', async () => text('ok')), tool('hash', async () => text('ok'), { requiredScopes: ['demo:crypto'] })], anonymous);
      await expect(call('open', {})).resolves.toEqual(text('ok'));
      await expect(call('hash', {})).rejects.toMatchObject({ code: WireErrorCode.InsufficientScope, data: { scopes: ['mcp', 'demo:crypto'] } });
    });

    it('answers invalid arguments with an error result and does not run the tool', async () => {
      let ran = false;
      const { call } = setup([tool('echo', async () => ((ran = true), text('ok')))]);
      const result = await call('echo', { n: 'not a number' });
      expect(result).toEqual({ content: [{ type: 'text', text: 'Invalid arguments for tool echo: /n: must be number' }], isError: true });
      expect(ran).toBe(false);
    });

    it('answers "timed out after N ms" when the tool overruns its timeout', async () => {
      const { call, clock } = setup([
        tool('slow', async (_args, context) => (await context.clock.sleep(10_000, context.signal), text('late')), { timeoutMs: 250 }),
      ]);
      const pending = call('slow', {});
      await flush();
      clock.advance(250);
      await expect(pending).resolves.toEqual({ content: [{ type: 'text', text: 'Tool slow timed out after 250 ms' }], isError: true });
    });

    it("stops at the caller's deadline when it comes before the tool's timeout", async () => {
      const { service, clock } = setup([
        tool('slow', async (_args, context) => (await context.clock.sleep(10_000, context.signal), text('late')), { timeoutMs: 5_000 }),
      ]);
      const pending = service.call(
        { tenant: 't', server: 's', callId: 'call-d', name: 'slow', protocolVersion: '2025-11-25', arguments: {} },
        member,
        clock.now() + 300,
      );
      await flush();
      clock.advance(300);
      await expect(pending).resolves.toEqual({ content: [{ type: 'text', text: 'Tool slow timed out after 300 ms' }], isError: true });
    });

    it('times out even a tool that ignores its signal', async () => {
      const { call, clock } = setup([tool('stubborn', () => new Promise<CallToolResult>(() => undefined), { timeoutMs: 100 })]);
      const pending = call('stubborn', {});
      await flush();
      clock.advance(100);
      await expect(pending).resolves.toMatchObject({ isError: true });
    });

    it('answers CANCELLED when the call is cancelled, and sends no progress afterwards', async () => {
      let report: ((value: number) => void) | undefined;
      const { call, service, emitted } = setup([
        tool('long', async (_args, context) => {
          report = (value) => context.progress(value);
          context.progress(1);
          await context.clock.sleep(10_000, context.signal);
          return text('done');
        }),
      ]);
      const pending = call('long', {}, 'call-9');
      await flush();
      service.cancel('call-9', 'stop');
      await expect(pending).rejects.toMatchObject({ code: WireErrorCode.Cancelled, message: 'Call cancelled: stop' });
      report?.(2);
      await flush();
      expect(emitted).toEqual([
        { callId: 'call-9', message: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p-1', progress: 1 } } },
      ]);
    });

    it('ignores a cancellation for an unknown call', () => {
      const { service } = setup([]);
      expect(() => service.cancel('nobody')).not.toThrow();
    });

    it('turns a thrown error into an error result', async () => {
      const { call } = setup([
        tool('broken', async () => {
          throw new Error('backend said no');
        }),
      ]);
      await expect(call('broken', {})).resolves.toEqual({ content: [{ type: 'text', text: 'Tool broken failed: backend said no' }], isError: true });
    });

    it('adds the JSON text block to structured content that matches the outputSchema', async () => {
      const outputSchema = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };
      const { call } = setup([tool('sum', async () => ({ content: [], structuredContent: { sum: 3 } }), { outputSchema })]);
      await expect(call('sum', {})).resolves.toEqual({ content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } });
    });

    it('answers an error result when structured content breaks the outputSchema', async () => {
      const outputSchema = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };
      const { call } = setup([tool('sum', async () => ({ content: [], structuredContent: { sum: 'three' } }), { outputSchema })]);
      const result = await call('sum', {});
      expect(result.isError).toBe(true);
      expect((result.content[0] as { text: string }).text).toMatch(/does not match its outputSchema: \/sum: must be number/);
    });
  });

  describe('call of a tool the server presents its own way (composition)', () => {
    const inputSchema = {
      type: 'object',
      properties: { query: { type: 'string' }, index: { type: 'string' }, limit: { type: 'integer' } },
      required: ['query', 'index', 'limit'],
      additionalProperties: false,
    };
    /** `search` exposed as `search_docs`, `index` fixed, `limit` defaulted. */
    const renamed = (implementation: ToolImplementation, options: { requiredScopes?: string[] } = {}): PreparedTool => {
      const base = tool('search', implementation, { inputSchema, ...options });
      return { ...base, wire: { ...base.wire, name: 'search_docs' }, fixedArguments: { index: 'docs' }, defaultArguments: { limit: 5 } };
    };

    it('runs the tool under its exposed name with the fixed and default arguments merged in', async () => {
      let received: unknown;
      const { call } = setup([renamed(async (args) => ((received = args), text('ok')))]);
      await expect(call('search_docs', { query: 'q' })).resolves.toEqual(text('ok'));
      expect(received).toEqual({ query: 'q', index: 'docs', limit: 5 });
      await call('search_docs', { query: 'q', limit: 2 });
      expect(received).toEqual({ query: 'q', index: 'docs', limit: 2 });
      await expect(call('search', { query: 'q' })).rejects.toMatchObject({ code: WireErrorCode.InvalidParams, message: 'Unknown tool: search' });
    });

    it('refuses a fixed argument sent by the client with INVALID_PARAMS naming it, and does not run the tool', async () => {
      let ran = false;
      const { call } = setup([renamed(async () => ((ran = true), text('ok')))]);
      await expect(call('search_docs', { query: 'q', index: 'docs' })).rejects.toMatchObject({
        code: WireErrorCode.InvalidParams,
        message: 'Invalid arguments for tool search_docs: argument index is fixed by this server',
      });
      expect(ran).toBe(false);
    });

    it('runs as a task under its exposed name: offered, described, and run with the merged arguments', async () => {
      let received: unknown;
      const base = renamed(async (args) => ((received = args), text('done')));
      const taskTool: PreparedTool = { ...base, record: { ...base.record, taskSupport: 'optional' } };
      const { service, callInMode } = setup([taskTool]);
      await expect(callInMode('search_docs', 'offer', { query: 'q' })).resolves.toEqual({ runAsTask: true });
      await expect(callInMode('search_docs', 'offer', { query: 'q', index: 'code' })).rejects.toMatchObject({ code: WireErrorCode.InvalidParams });
      expect(service.describe({ tenant: 't', server: 's', name: 'search_docs' }, member)).toEqual({ taskSupport: 'optional', idempotent: false });
      await expect(callInMode('search_docs', 'task', { query: 'q' })).resolves.toEqual(text('done'));
      expect(received).toEqual({ query: 'q', index: 'docs', limit: 5 });
    });

    it('names the exposed tool in its errors: invalid arguments and missing scopes', async () => {
      const { call } = setup([renamed(async () => text('ok'))]);
      await expect(call('search_docs', { query: 1 })).resolves.toMatchObject({
        isError: true,
        content: [{ text: expect.stringMatching(/^Invalid arguments for tool search_docs: /) }],
      });
      const scoped = setup([renamed(async () => text('ok'), { requiredScopes: ['search:read'] })]);
      await expect(scoped.call('search_docs', { query: 'q' })).rejects.toMatchObject({
        code: WireErrorCode.InsufficientScope,
        message: 'Tool search_docs requires scope search:read',
      });
    });
  });

  describe('call with a resumable stream (legacy era)', () => {
    const STREAM: { key: string; requestId: number; primeAfterMs?: number } = { key: 'tag.c1', requestId: 7 };
    /** A legacy call whose caller asked for progress and info logs, on the resumable stream `STREAM` (`null`: none). */
    const callLogged = (service: CallsService, name: string, callId: string, stream: typeof STREAM | null = STREAM) =>
      service.call(
        {
          tenant: 't',
          server: 's',
          callId,
          name,
          protocolVersion: '2025-11-25',
          notify: { route: 'r', progressToken: 'tok', logLevel: 'info' },
          ...(stream ? { stream } : {}),
        },
        member,
      );
    /** What the log holds for `key`, in order. */
    const logged = async (eventLog: MemoryEventLog, key: string) => {
      const entries: Array<{ n: number; entry: unknown }> = [];
      const reading = new AbortController();
      const done = eventLog.read(key, 0, (event) => void entries.push({ n: event.n, entry: JSON.parse(event.data) as unknown }), reading.signal);
      reading.abort();
      await done;
      return entries;
    };
    const progress = (value: number) => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: value } });
    const info = (data: string) => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data } });

    it('logs each message at the next position and sends it with that position, then logs the outcome before replying', async () => {
      const { service, eventLog, events } = setup([
        tool('steps', async (_args, context) => {
          context.progress(1);
          context.log('info', 'halfway');
          context.progress(2);
          return text('done');
        }),
      ]);
      await expect(callLogged(service, 'steps', 'c-steps')).resolves.toEqual(text('done'));
      expect(await logged(eventLog, STREAM.key)).toEqual([
        { n: 1, entry: { message: progress(1) } },
        { n: 2, entry: { message: info('halfway') } },
        { n: 3, entry: { message: progress(2) } },
        { n: 4, entry: { requestId: 7, outcome: { result: text('done') } } },
      ]);
      expect(events).toEqual(
        [progress(1), info('halfway'), progress(2)].map((message, index) => ({
          subject: 'session-broker.v1.call.message-posted',
          route: 'r',
          payload: { callId: 'c-steps', position: index + 1, message },
        })),
      );
    });

    it('logs the error of a call refused before it ran, once its broker may have primed the stream', async () => {
      const { service, eventLog, events } = setup([]);
      await expect(callLogged(service, 'ghost', 'c-ghost', { ...STREAM, primeAfterMs: 0 })).rejects.toMatchObject({ code: WireErrorCode.InvalidParams });
      expect(await logged(eventLog, STREAM.key)).toEqual([
        { n: 1, entry: { requestId: 7, outcome: { error: { code: WireErrorCode.InvalidParams, message: 'Unknown tool: ghost' } } } },
      ]);
      expect(events).toEqual([]);
    });

    it('logs nothing for a silent call that ends well before the priming delay: the client holds no id to resume from', async () => {
      const { service, eventLog } = setup([tool('quick', async () => text('fast'))]);
      await expect(callLogged(service, 'quick', 'c-quick', { ...STREAM, primeAfterMs: 500 })).resolves.toMatchObject({ content: [{ text: 'fast' }] });
      await expect(callLogged(service, 'ghost', 'c-ghost', { ...STREAM, primeAfterMs: 500 })).rejects.toMatchObject({ code: WireErrorCode.InvalidParams });
      await expect(eventLog.lastPosition(STREAM.key)).resolves.toBeUndefined();
    });

    it('logs CANCELLED after the messages sent before the cancellation', async () => {
      const { service, eventLog } = setup([
        tool('long', async (_args, context) => (context.progress(1), await context.clock.sleep(10_000, context.signal), text('late'))),
      ]);
      const pending = callLogged(service, 'long', 'c-long');
      await flush();
      service.cancel('c-long', 'stop');
      await expect(pending).rejects.toMatchObject({ code: WireErrorCode.Cancelled });
      expect(await logged(eventLog, STREAM.key)).toEqual([
        { n: 1, entry: { message: progress(1) } },
        { n: 2, entry: { requestId: 7, outcome: { error: { code: WireErrorCode.Cancelled, message: 'Call cancelled: stop' } } } },
      ]);
    });

    it("asks the broker to close the client's connection after the messages sent before (S-81), and only for a resumable stream", async () => {
      const polling = tool('poll', async (_args, context) => (context.progress(1), context.closeConnection(), text('done')));
      const resumable = setup([polling]);
      await callLogged(resumable.service, 'poll', 'c-poll');
      expect(resumable.events.map((event) => [event.subject, event.payload])).toEqual([
        ['session-broker.v1.call.message-posted', { callId: 'c-poll', position: 1, message: progress(1) }],
        ['session-broker.v1.call.disconnect-requested', { callId: 'c-poll' }],
      ]);
      const plain = setup([polling]);
      await callLogged(plain.service, 'poll', 'c-plain', null);
      expect(plain.events.map((event) => [event.subject, event.payload])).toEqual([
        ['session-broker.v1.call.message-posted', { callId: 'c-plain', message: progress(1) }],
      ]);
      expect(await plain.eventLog.lastPosition(STREAM.key)).toBeUndefined();
    });
  });

  describe('beat', () => {
    it('tells each waiting broker replica which of its calls still run, and stops telling once they answered', async () => {
      let finish: () => void = () => undefined;
      const { service, call, events } = setup([tool('wait', () => new Promise<CallToolResult>((resolve) => (finish = () => resolve(text('done')))))]);
      const running = call('wait', {}, 'call-7');
      await flush();
      service.beat();
      expect(events.filter((event) => event.subject === sessionBroker.callsAlive.subject)).toEqual([
        { subject: sessionBroker.callsAlive.subject, payload: { callIds: ['call-7'] }, route: 'r' },
      ]);
      finish();
      await running;
      service.beat();
      expect(events.filter((event) => event.subject === sessionBroker.callsAlive.subject)).toHaveLength(1);
    });
  });

  describe('rootsChanged', () => {
    /** Waits until its client's roots change (then answers `changed <n>`) or the call stops. */
    const watcher = tool('watch', (args, context) => {
      return new Promise<CallToolResult>((resolve, reject) => {
        context.client.onRootsChanged(() => resolve(text(`changed ${String(args['n'])}`)));
        context.signal.addEventListener('abort', () => reject(context.signal.reason as Error), { once: true });
      });
    });
    const LIST_CHANGED = { roots: { listChanged: true } };

    it('tells the listeners of the calls of the session whose roots changed, and no other call (S-342)', async () => {
      const { service, callInSession, callModern } = setup([watcher]);
      const settled: string[] = [];
      const track = (label: string, answer: Promise<unknown>) =>
        answer.then(
          () => void settled.push(label),
          () => void settled.push(`${label} stopped`),
        );
      const mine = track('mine', callInSession('watch', 'session-1', LIST_CHANGED, 'l-mine', { n: 1 }));
      const other = track('other', callInSession('watch', 'session-2', LIST_CHANGED, 'l-other', { n: 2 }));
      const undeclared = track('undeclared', callInSession('watch', 'session-1', { roots: {} }, 'l-undeclared', { n: 3 }));
      const modern = track('modern', callModern('watch', LIST_CHANGED));
      await flush();
      service.rootsChanged('session-1');
      await mine;
      await flush();
      expect(settled).toEqual(['mine']);
      for (const callId of ['l-other', 'l-undeclared', 'm-watch']) service.cancel(callId);
      await Promise.all([other, undeclared, modern]);
      expect(settled.slice(1).sort()).toEqual(['modern stopped', 'other stopped', 'undeclared stopped']);
    });

    it('tells a call nothing once it has ended', async () => {
      let heard = 0;
      const { service, callInSession } = setup([tool('quick', async (_args, context) => (context.client.onRootsChanged(() => void heard++), text('done')))]);
      await expect(callInSession('quick', 'session-1', LIST_CHANGED, 'l-quick')).resolves.toEqual(text('done'));
      service.rootsChanged('session-1');
      expect(heard).toBe(0);
    });
  });

  describe('call completing a URL-mode elicitation (legacy era)', () => {
    const CONNECT = { mode: 'url' as const, message: 'Connect your account', url: 'https://example.com/connect', elicitationId: 'elicitation-7' };
    const URL_MODE = { elicitation: { url: {} } };

    it("sends the request and then the completion on the call's stream, before the result (S-327)", async () => {
      const connect = tool('connect', async (_args, context) => {
        const answer = await context.client.elicit(CONNECT);
        context.client.completeElicitation(CONNECT.elicitationId);
        return text(answer.action);
      });
      const { service, callInSession, events, flushes } = setup([connect]);
      const answer = callInSession('connect', 'session-1', URL_MODE, 'l-connect');
      await flush();
      service.answerClientRequest({ callId: 'l-connect', inputId: 'l-connect#1', sessionId: 'session-1', outcome: { result: { action: 'accept' } } });
      await expect(answer).resolves.toEqual(text('accept'));
      expect(events).toEqual([
        {
          subject: 'session-broker.v1.call.message-posted',
          route: 'r',
          payload: { callId: 'l-connect', message: { jsonrpc: '2.0', id: 'l-connect#1', method: 'elicitation/create', params: CONNECT } },
        },
        {
          subject: 'session-broker.v1.call.message-posted',
          route: 'r',
          payload: {
            callId: 'l-connect',
            message: { jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: 'elicitation-7' } },
          },
        },
      ]);
      expect(flushes()).toBe(1);
    });

    it('fails the tool, sending nothing, when it completes an elicitation it never sent in URL mode', async () => {
      const { callInSession, events } = setup([tool('bogus', async (_args, context) => (context.client.completeElicitation('elicitation-7'), text('done')))]);
      const result = await callInSession('bogus', 'session-1', URL_MODE, 'l-bogus');
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/no URL-mode elicitation "elicitation-7"/) }] });
      expect(events).toEqual([]);
    });
  });

  describe('call and tasks (taskMode, S-197)', () => {
    /** A tool of each kind of task support, each counting its runs. */
    function taskTools() {
      const runs: string[] = [];
      const make = (taskSupport: toolExecutor.TaskSupport) => tool(taskSupport, async () => (runs.push(taskSupport), text(taskSupport)), { taskSupport });
      return { runs, tools: [make('forbidden'), make('optional'), make('required')] };
    }

    it('refuses a plain 2026-07-28 call of a tool that requires a task as missing the tasks extension (S-295), and does not run it', async () => {
      const { runs, tools } = taskTools();
      const { callInMode } = setup(tools);
      await expect(callInMode('required', undefined)).rejects.toMatchObject({
        code: WireErrorCode.MissingClientCapability,
        data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
      });
      expect(runs).toEqual([]);
    });

    it('refuses a plain call of a session of 2025-11-25 of a tool that requires a task with UNSUPPORTED (S-197), and does not run it', async () => {
      const { runs, tools } = taskTools();
      const { service } = setup(tools);
      await expect(
        service.call({ tenant: 't', server: 's', callId: 'k-legacy', name: 'required', protocolVersion: '2025-11-25', arguments: {} }, member),
      ).rejects.toMatchObject({
        code: WireErrorCode.Unsupported,
        message: 'Tool required can only run as a task',
      });
      expect(runs).toEqual([]);
    });

    it('runs a plain call of a tool that forbids or allows tasks', async () => {
      const { runs, tools } = taskTools();
      const { callInMode } = setup(tools);
      await expect(callInMode('forbidden', undefined)).resolves.toEqual(text('forbidden'));
      await expect(callInMode('optional', undefined)).resolves.toEqual(text('optional'));
      expect(runs).toEqual(['forbidden', 'optional']);
    });

    it('answers an offered call of a tool that allows or requires tasks with runAsTask, without running it', async () => {
      const { runs, tools } = taskTools();
      const { callInMode } = setup(tools);
      await expect(callInMode('optional', 'offer')).resolves.toEqual({ runAsTask: true });
      await expect(callInMode('required', 'offer')).resolves.toEqual({ runAsTask: true });
      expect(runs).toEqual([]);
    });

    it('runs an offered call of a tool that forbids tasks', async () => {
      const { runs, tools } = taskTools();
      const { callInMode } = setup(tools);
      await expect(callInMode('forbidden', 'offer')).resolves.toEqual(text('forbidden'));
      expect(runs).toEqual(['forbidden']);
    });

    it("answers an offered call's invalid arguments with an error result rather than a task", async () => {
      const { runs, tools } = taskTools();
      const { callInMode } = setup(tools);
      await expect(callInMode('required', 'offer', { n: 'x' })).resolves.toMatchObject({ isError: true });
      expect(runs).toEqual([]);
    });

    it("runs a task's call of a tool that requires tasks", async () => {
      const { runs, tools } = taskTools();
      const { callInMode } = setup(tools);
      await expect(callInMode('required', 'task')).resolves.toEqual(text('required'));
      expect(runs).toEqual(['required']);
    });
  });

  describe('call of a tool that asks before its task (beforeTask, issue 14 §2.4)', () => {
    const NAME_FORM = {
      message: 'Your name?',
      requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] },
    };
    const ALICE = { action: 'accept', content: { name: 'Alice' } };
    /** A tool requiring tasks that asks `user_name` before its task, and whose run greets by that answer. */
    function asker() {
      const runs: string[] = [];
      const greeter = tool(
        'asker',
        async (_args, context) => {
          const answer = await context.client.elicit(NAME_FORM, { inputKey: 'user_name' });
          runs.push(String(answer.content?.['name']));
          return text(`Hello, ${String(answer.content?.['name'])}!`);
        },
        { taskSupport: 'required', beforeTask: [{ inputKey: 'user_name', elicit: NAME_FORM }] },
      );
      return { runs, tools: [greeter] };
    }
    const offer = (
      service: CallsService,
      options: { capabilities?: Record<string, unknown>; inputResponses?: Record<string, unknown>; taskMode?: 'offer' | 'task' } = {},
    ) =>
      service.call(
        {
          tenant: 't',
          server: 's',
          callId: 'b-1',
          name: 'asker',
          protocolVersion: '2026-07-28',
          clientCapabilities: options.capabilities ?? { elicitation: {} },
          ...(options.inputResponses ? { inputResponses: options.inputResponses } : {}),
          taskMode: options.taskMode ?? 'offer',
        },
        member,
      );

    it('answers an offered call input_required with the questions, before any task and without running the tool', async () => {
      const { runs, tools } = asker();
      const { service } = setup(tools);
      await expect(offer(service)).resolves.toEqual({ inputRequired: { inputRequests: { user_name: { method: 'elicitation/create', params: NAME_FORM } } } });
      expect(runs).toEqual([]);
    });

    it('answers runAsTask with the answers to its questions once the retry brings them, other answers left out', async () => {
      const { runs, tools } = asker();
      const { service } = setup(tools);
      await expect(offer(service, { inputResponses: { user_name: ALICE, unrelated: { action: 'decline' } } })).resolves.toEqual({
        runAsTask: true,
        inputResponses: { user_name: ALICE },
      });
      expect(runs).toEqual([]);
    });

    it('refuses a malformed answer with INVALID_PARAMS (S-68) and a client without elicitation with -32021 (S-38)', async () => {
      const { tools } = asker();
      const { service } = setup(tools);
      await expect(offer(service, { inputResponses: { user_name: 12345 } })).rejects.toMatchObject({
        code: WireErrorCode.InvalidParams,
        data: { inputKey: 'user_name' },
      });
      await expect(offer(service, { capabilities: {} })).rejects.toMatchObject({
        code: WireErrorCode.MissingClientCapability,
        data: { requiredCapabilities: { elicitation: {} } },
      });
    });

    it("runs the task's call with the answers the task was created with, asking nothing again", async () => {
      const { runs, tools } = asker();
      const { service } = setup(tools);
      await expect(offer(service, { taskMode: 'task', inputResponses: { user_name: ALICE } })).resolves.toEqual(text('Hello, Alice!'));
      expect(runs).toEqual(['Alice']);
    });
  });

  describe('call of a tool that fails at the protocol level (ToolProtocolFailure)', () => {
    it('answers INTERNAL rather than an isError result, so a task running it ends failed (SEP-2663)', async () => {
      const broken = tool('broken', async () => {
        throw new ToolProtocolFailure('the backend crashed');
      });
      const { call } = setup([broken]);
      await expect(call('broken')).rejects.toMatchObject({ code: WireErrorCode.Internal, message: 'Tool broken failed: the backend crashed' });
    });
  });

  describe('call of a tool that words its own input requests (AsksClient)', () => {
    const CONFIRM = { method: 'elicitation/create' as const, params: { message: 'Sure?', requestedSchema: { type: 'object', properties: {} } } };
    /** Asks `confirm` under its own key with the continuation `{ step: 1 }`, then reports the answer and the continuation it got back. */
    const asking = tool('asking', async (_args, context) => {
      if (context.continuation === undefined) throw new AsksClient({ confirm: CONFIRM }, { step: 1 });
      return text(JSON.stringify(context.continuation));
    });

    it('answers input_required with the keys and continuation the tool gave, and hands the continuation back on the retry', async () => {
      const { service } = setup([asking]);
      const modern = { tenant: 't', server: 's', callId: 'm-1', name: 'asking', protocolVersion: '2026-07-28', clientCapabilities: { elicitation: {} } };
      expect(await service.call(modern, member)).toEqual({ inputRequired: { inputRequests: { confirm: CONFIRM }, continuation: { step: 1 } } });
      const retry = await service.call({ ...modern, callId: 'm-2', inputResponses: { confirm: { action: 'accept' } }, continuation: { step: 1 } }, member);
      expect(retry).toEqual(text('{"step":1}'));
    });

    it('refuses with -32021 naming what the client did not declare, asking nothing (S-38)', async () => {
      const { callModern } = setup([asking]);
      await expect(callModern('asking', { sampling: {} })).rejects.toMatchObject({
        code: WireErrorCode.MissingClientCapability,
        data: { requiredCapabilities: { elicitation: {} } },
      });
    });
  });

  describe('describe', () => {
    const address = (name: string) => ({ tenant: 't', server: 's', name });

    it('tells the task support and whether the tool said it is idempotent', () => {
      const { service } = setup([
        tool('report', async () => text('ok'), { taskSupport: 'required', annotations: { idempotentHint: false } }),
        tool('read', async () => text('ok'), { taskSupport: 'optional', annotations: { readOnlyHint: true, idempotentHint: true } }),
        tool('plain', async () => text('ok')),
      ]);
      expect(service.describe(address('report'), member)).toEqual({ taskSupport: 'required', idempotent: false });
      expect(service.describe(address('read'), member)).toEqual({ taskSupport: 'optional', idempotent: true });
      // S-192: idempotentHint defaults to false.
      expect(service.describe(address('plain'), member)).toEqual({ taskSupport: 'forbidden', idempotent: false });
    });

    it('refuses like a call: another tenant, an unknown tool, missing scopes', () => {
      const { service } = setup([tool('hash', async () => text('ok'), { requiredScopes: ['demo:crypto'] })]);
      expect(() => service.describe(address('hash'), { ...member, tenant: 'other' })).toThrow(expect.objectContaining({ code: WireErrorCode.Forbidden }));
      expect(() => service.describe(address('ghost'), member)).toThrow(expect.objectContaining({ code: WireErrorCode.InvalidParams }));
      expect(() => service.describe(address('hash'), member)).toThrow(
        expect.objectContaining({ code: WireErrorCode.InsufficientScope, data: { scopes: ['mcp', 'demo:crypto'] } }),
      );
      expect(() => service.describe({ tenant: 't', server: 'nope', name: 'hash' }, member)).toThrow(expect.objectContaining({ code: WireErrorCode.NotFound }));
    });
  });

  describe('call in the modern era (multi round-trip requests)', () => {
    const NAME_FORM = { message: 'Your name?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } } } };
    const ELICIT_NAME = { method: 'elicitation/create', params: NAME_FORM };
    /** Asks for a name, then for roots, and reports both. */
    const greeter = tool('greet', async (_args, context) => {
      const answer = await context.client.elicit(NAME_FORM);
      const { roots } = await context.client.listRoots();
      return text(`hello ${String(answer.content?.['name'])} in ${roots.map((root) => root.uri).join(',')}`);
    });
    const CAPABILITIES = { elicitation: {}, roots: {} };

    it('ends the round with the first request the answers lack, keyed input-<n>', async () => {
      const { callModern } = setup([greeter]);
      await expect(callModern('greet', CAPABILITIES)).resolves.toEqual({ inputRequired: { inputRequests: { 'input-1': ELICIT_NAME } } });
      await expect(callModern('greet', CAPABILITIES, { 'input-1': { action: 'accept', content: { name: 'Ada' } } })).resolves.toEqual({
        inputRequired: { inputRequests: { 'input-2': { method: 'roots/list' } } },
      });
    });

    it('runs the tool to its result once every request is answered', async () => {
      const { callModern } = setup([greeter]);
      const answers = { 'input-1': { action: 'accept', content: { name: 'Ada' } }, 'input-2': { roots: [{ uri: 'file:///work' }] } };
      await expect(callModern('greet', CAPABILITIES, answers)).resolves.toEqual(text('hello Ada in file:///work'));
    });

    it('collects the requests a tool asks together in one round', async () => {
      const together = tool('together', async (_args, context) => {
        const [answer, { roots }] = await Promise.all([context.client.elicit(NAME_FORM), context.client.listRoots()]);
        return text(`${String(answer.action)} ${roots.length}`);
      });
      const { callModern } = setup([together]);
      await expect(callModern('together', CAPABILITIES)).resolves.toEqual({
        inputRequired: { inputRequests: { 'input-1': ELICIT_NAME, 'input-2': { method: 'roots/list' } } },
      });
    });

    it('answers the requests even when the tool turned the refusal into a result of its own', async () => {
      const swallowing = tool('swallow', async (_args, context) =>
        context.client.listRoots().then(
          () => text('roots'),
          () => text('no roots'),
        ),
      );
      const { callModern } = setup([swallowing]);
      await expect(callModern('swallow', { roots: {} })).resolves.toEqual({ inputRequired: { inputRequests: { 'input-1': { method: 'roots/list' } } } });
    });

    it('asks nothing the client did not declare on this request (S-64)', async () => {
      let refusal: unknown;
      const asking = tool('ask', async (_args, context) =>
        context.client.listRoots().then(
          () => text('roots'),
          (error: unknown) => ((refusal = error), text('no roots')),
        ),
      );
      const { callModern } = setup([asking]);
      await expect(callModern('ask', { elicitation: {} })).resolves.toEqual(text('no roots'));
      expect(refusal).toEqual(new ClientCapabilityMissing('roots', { roots: {} }));
    });

    it('answers -32021 naming what is missing when the tool failed on a capability the request did not declare (S-38)', async () => {
      const sampling = tool('sample', async (_args, context) =>
        context.client.createMessage({ messages: [], maxTokens: 1 }).then(
          () => text('sampled'),
          (error: unknown) => ({ ...text(`no sampling: ${(error as Error).message}`), isError: true }),
        ),
      );
      const { callModern, call } = setup([sampling]);
      await expect(callModern('sample', { elicitation: {} })).rejects.toMatchObject({
        code: WireErrorCode.MissingClientCapability,
        data: { requiredCapabilities: { sampling: {} } },
      });
      // The 2025 era has no such error: the tool's own result, as before.
      await expect(call('sample')).resolves.toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('no sampling') }] });
    });

    it('answers -32021 when the refusal escaped the tool, and keeps a result the tool made without the capability', async () => {
      const thrower = tool('throw', async (_args, context) => context.client.listRoots().then(() => text('roots')));
      const coping = tool('cope', async (_args, context) =>
        context.client.listRoots().then(
          () => text('roots'),
          () => text('managed without roots'),
        ),
      );
      const { callModern } = setup([thrower, coping]);
      await expect(callModern('throw', {})).rejects.toMatchObject({
        code: WireErrorCode.MissingClientCapability,
        data: { requiredCapabilities: { roots: {} } },
      });
      await expect(callModern('cope', {})).resolves.toEqual(text('managed without roots'));
    });

    it('keys a request by the input key the tool names, and refuses a key asked twice in one run', async () => {
      const named = tool('named', async (_args, context) => {
        const answer = await context.client.elicit(NAME_FORM, { inputKey: 'user_name' });
        return text(`hello ${String(answer.content?.['name'])}`);
      });
      const twice = tool('twice', async (_args, context) => {
        await context.client.listRoots({ inputKey: 'roots' });
        await context.client.listRoots({ inputKey: 'roots' });
        return text('asked twice');
      });
      const { callModern } = setup([named, twice]);
      await expect(callModern('named', CAPABILITIES)).resolves.toEqual({ inputRequired: { inputRequests: { user_name: ELICIT_NAME } } });
      await expect(callModern('named', CAPABILITIES, { user_name: { action: 'accept', content: { name: 'Ada' } } })).resolves.toEqual(text('hello Ada'));
      const failed = await callModern('twice', CAPABILITIES, { roots: { roots: [] } });
      expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('input key "roots" was already asked') }] });
    });

    it('answers -32602 naming the key for an answer that is not the result the request asked for, whatever the tool made of it (S-68)', async () => {
      const swallowing = tool('swallow', async (_args, context) =>
        context.client.elicit(NAME_FORM).then(
          () => text('named'),
          () => text('no name'),
        ),
      );
      const { callModern } = setup([greeter, swallowing]);
      for (const name of ['greet', 'swallow']) {
        await expect(callModern(name, CAPABILITIES, { 'input-1': { roots: [] } })).rejects.toMatchObject({
          code: WireErrorCode.InvalidParams,
          message: expect.stringMatching(/^Invalid params: inputResponses\.input-1: .*malformed/),
          data: { inputKey: 'input-1' },
        });
      }
    });
  });

  describe('call with Mcp-Param-* headers (stateless wire, S-116)', () => {
    const inputSchema = {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        priority: { type: 'integer', 'x-mcp-header': 'Priority' },
        query: { type: 'string' },
      },
      required: ['region'],
    };
    const echo = () => tool('routed', async (args) => text(JSON.stringify(args)), { inputSchema });

    it('runs the tool when every mirrored header matches its argument', async () => {
      const { callWithHeaders } = setup([echo()]);
      const answer = await callWithHeaders('routed', { region: 'Hello', priority: 0, query: 'q' }, { region: '=?base64?SGVsbG8=?=', priority: '0' });
      expect(answer).toEqual(text('{"region":"Hello","priority":0,"query":"q"}'));
    });

    it('answers HEADER_MISMATCH naming the header, without running the tool, when a header is missing or differs', async () => {
      let ran = false;
      const { callWithHeaders } = setup([tool('routed', async () => ((ran = true), text('ran')), { inputSchema })]);
      await expect(callWithHeaders('routed', { region: 'test-value' }, {})).rejects.toMatchObject({
        code: WireErrorCode.HeaderMismatch,
        message: 'the Mcp-Param-Region header is required: the arguments carry region',
      });
      await expect(callWithHeaders('routed', { region: 'a' }, { region: 'b' })).rejects.toMatchObject({
        code: WireErrorCode.HeaderMismatch,
        message: expect.stringContaining('Mcp-Param-Region'),
      });
      await expect(callWithHeaders('routed', { region: 'Hello' }, { region: '=?base64?SGVsbG8?=' })).rejects.toMatchObject({
        code: WireErrorCode.HeaderMismatch,
      });
      await expect(callWithHeaders('routed', { region: 'a' }, { region: 'a', priority: '1' })).rejects.toMatchObject({
        code: WireErrorCode.HeaderMismatch,
        message: expect.stringContaining('Mcp-Param-Priority'),
      });
      expect(ran).toBe(false);
    });

    it('checks before a call offered as a task becomes one', async () => {
      const { callWithHeaders } = setup([tool('routed', async () => text('ran'), { inputSchema, taskSupport: 'optional' })]);
      await expect(callWithHeaders('routed', { region: 'a' }, {}, 'offer')).rejects.toMatchObject({ code: WireErrorCode.HeaderMismatch });
      await expect(callWithHeaders('routed', { region: 'a' }, { region: 'a' }, 'offer')).resolves.toEqual({ runAsTask: true });
    });

    it('checks nothing without paramHeaders (legacy calls, task runs)', async () => {
      const { call, callInMode } = setup([echo()]);
      await expect(call('routed', { region: 'a' })).resolves.toEqual(text('{"region":"a"}'));
      await expect(callInMode('routed', 'task', { region: 'a' })).resolves.toEqual(text('{"region":"a"}'));
    });
  });

  describe('onDrain', () => {
    /** A tool that runs until its call is stopped, or until `finish` is called. */
    function held() {
      let finish = (): void => undefined;
      const implementation: ToolImplementation = (_args, context) =>
        new Promise<CallToolResult>((resolve, reject) => {
          finish = () => resolve(text('finished'));
          context.signal.addEventListener('abort', () => reject(context.signal.reason));
        });
      return { implementation, finish: () => finish() };
    }

    it('resolves at once with nothing in flight', async () => {
      const { service } = setup([]);
      const started = Date.now();
      await service.onDrain(started + 5_000);
      expect(Date.now() - started).toBeLessThan(1_000);
    });

    it('lets a call in flight finish within the grace: its client gets the result', async () => {
      const { implementation, finish } = held();
      const { service, call } = setup([tool('slow', implementation, { timeoutMs: 60_000 })]);
      const answer = call('slow', {});
      await flush();
      const drained = service.onDrain(Date.now() + 5_000);
      setTimeout(finish, 100);
      await expect(answer).resolves.toEqual(text('finished'));
      await drained;
    });

    it('stops a call still running at the end of the grace with UNAVAILABLE, logged on its stream, and leaves task runs alone', async () => {
      const slow = held();
      const taskRun = held();
      const { service, eventLog } = setup([
        tool('slow', slow.implementation, { timeoutMs: 60_000 }),
        tool('task_slow', taskRun.implementation, { timeoutMs: 60_000 }),
      ]);
      const answer = service.call(
        {
          tenant: 't',
          server: 's',
          callId: 'call-1',
          name: 'slow',
          protocolVersion: '2025-11-25',
          arguments: {},
          notify: { route: 'r' },
          stream: { key: 'k-1', requestId: 7, primeAfterMs: 100 },
        },
        member,
      );
      // As the task worker runs a task: with its own delivery.
      const run = service.call(
        { tenant: 't', server: 's', callId: 'task-1', name: 'task_slow', protocolVersion: '2026-07-28', arguments: {}, taskMode: 'task' },
        member,
        undefined,
        {},
      );
      await flush();
      const started = Date.now();
      // Awaited after the drain, but handled from now on: the call ends while the drain still runs.
      const stopped = expect(answer).rejects.toMatchObject({
        code: WireErrorCode.Unavailable,
        message: 'The tool executor stopped before the call finished; call the tool again',
      });
      await service.onDrain(started + 150);
      await stopped;
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
      const logged: string[] = [];
      await eventLog.read('k-1', 0, (event) => void logged.push(event.data), AbortSignal.timeout(100)).catch(() => undefined);
      expect(logged.map((data) => JSON.parse(data) as unknown)).toEqual([
        { requestId: 7, outcome: { error: expect.objectContaining({ code: WireErrorCode.Unavailable }) } },
      ]);
      taskRun.finish();
      await expect(run).resolves.toEqual(text('finished'));
    });
  });
});
