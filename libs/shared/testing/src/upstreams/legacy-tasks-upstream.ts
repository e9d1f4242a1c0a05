import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type CreateTaskRequestHandlerExtra, InMemoryTaskMessageQueue, InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { FIXTURE_ERROR_CODES, headerValue, listenOnLoopback, methodsOf, parseJsonBody, readBody, sendJsonRpcError } from './upstream-http';

/** A running 2025-11-25 upstream (SDK 1.x) with core tasks, on 127.0.0.1. */
export interface LegacyTasksUpstream {
  /** The Streamable HTTP endpoint (stateful: its tasks belong to the session that created them). */
  readonly url: string;
  /** Every request's and notification's method, in order. */
  readonly methods: readonly string[];
  /** The `params.task` of every task-augmented `tools/call`, in order. */
  readonly taskRequests: ReadonlyArray<{ tool: string; ttl?: number }>;
  /** A task's status now (any session's), or `undefined` for a task it does not know. */
  status(taskId: string): Promise<string | undefined>;
  /** The task ids it created, in order. */
  readonly taskIds: readonly string[];
  close(): Promise<void>;
}

/** The fixture's tools: `report` has no task support; `long_job` and `ask_job` allow tasks; `must_task` requires them. */
export const LEGACY_TASKS_UPSTREAM_TOOLS = ['report', 'long_job', 'ask_job', 'must_task'] as const;

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/** What the fixture keeps across sessions. */
interface FixtureState {
  readonly store: InMemoryTaskStore;
  readonly queue: InMemoryTaskMessageQueue;
  readonly methods: string[];
  readonly taskRequests: Array<{ tool: string; ttl?: number }>;
  readonly taskIds: string[];
}

/** A task's work, run after its `CreateTaskResult` went out: it ends in the store (the SDK answers `tasks/*` from there). */
type TaskWork = (taskId: string, args: { ms?: number | undefined }, extra: CreateTaskRequestHandlerExtra) => Promise<void>;

/** Registers a task tool whose task runs `work` (the SDK's `tasks/get` and `tasks/result` read the store). */
function registerTaskTool(server: McpServer, state: FixtureState, name: string, taskSupport: 'optional' | 'required', work: TaskWork): void {
  server.experimental.tasks.registerToolTask(
    name,
    { inputSchema: { ms: z.number().optional() }, execution: { taskSupport } },
    {
      createTask: async (args, extra) => {
        const task = await extra.taskStore.createTask({ ttl: 60_000, pollInterval: 100 });
        state.taskIds.push(task.taskId);
        void work(task.taskId, args, extra).catch(() => undefined);
        return { task };
      },
      getTask: (_args, extra) => extra.taskStore.getTask(extra.taskId),
      getTaskResult: (_args, extra) => extra.taskStore.getTaskResult(extra.taskId) as never,
    },
  );
}

/** One session's server: the fixture's tools over the shared task store and message queue. */
function sessionServer(state: FixtureState): McpServer {
  const server = new McpServer(
    { name: 'legacy-tasks-fixture', version: '1.0.0' },
    {
      capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } }, cancel: {}, list: {} } },
      taskStore: state.store,
      taskMessageQueue: state.queue,
    },
  );
  server.registerTool('report', {}, () => text('report ready'));
  const finish = async (taskId: string, extra: CreateTaskRequestHandlerExtra, value: string): Promise<void> => {
    if ((await extra.taskStore.getTask(taskId))?.status !== 'working') return;
    await extra.taskStore.storeTaskResult(taskId, 'completed', text(value));
  };
  const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  registerTaskTool(server, state, 'long_job', 'optional', async (taskId, args, extra) => {
    await later(args.ms ?? 300);
    await finish(taskId, extra, 'long_job done');
  });
  registerTaskTool(server, state, 'must_task', 'required', async (taskId, _args, extra) => finish(taskId, extra, 'must_task done'));
  registerTaskTool(server, state, 'ask_job', 'optional', async (taskId, _args, extra) => {
    await extra.taskStore.updateTaskStatus(taskId, 'input_required');
    const requestedSchema = { type: 'object' as const, properties: { colour: { type: 'string' as const } } };
    const answer = await server.server.elicitInput({ mode: 'form', message: 'Which colour?', requestedSchema }, { relatedTask: { taskId } });
    await extra.taskStore.updateTaskStatus(taskId, 'working');
    await finish(taskId, extra, `colour: ${String(answer.content?.['colour'])}`);
  });
  return server;
}

/**
 * Starts a 2025-11-25 upstream on `@modelcontextprotocol/sdk` 1.x with core tasks (its experimental task
 * support: `registerToolTask`, an in-memory task store and message queue): Streamable HTTP, one
 * `McpServer` per session. `report` answers at once; `long_job` (optional) completes `ms` ms (default
 * 300) after its task started; `ask_job` (optional) asks `colour` (an elicitation queued for the task,
 * delivered on `tasks/result`) and completes with the answer; `must_task` (required) refuses a plain
 * call with -32601, as the SDK does.
 */
export async function startLegacyTasksUpstream(): Promise<LegacyTasksUpstream> {
  const state: FixtureState = { store: new InMemoryTaskStore(), queue: new InMemoryTaskMessageQueue(), methods: [], taskRequests: [], taskIds: [] };
  const sessions = new Map<string, { server: McpServer; transport: StreamableHTTPServerTransport }>();
  const http = await listenOnLoopback((request, response) => serve(state, sessions, request, response));
  return {
    url: `${http.origin}/mcp`,
    get methods() {
      return [...state.methods];
    },
    get taskRequests() {
      return [...state.taskRequests];
    },
    get taskIds() {
      return [...state.taskIds];
    },
    status: async (taskId) => (await state.store.getTask(taskId))?.status,
    async close() {
      await Promise.allSettled([...sessions.values()].map(({ server }) => server.close()));
      sessions.clear();
      state.store.cleanup();
      await http.close();
    },
  };
}

type Sessions = Map<string, { server: McpServer; transport: StreamableHTTPServerTransport }>;

async function serve(state: FixtureState, sessions: Sessions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const sessionId = headerValue(request, 'mcp-session-id');
  const body = request.method === 'POST' ? parseJsonBody(await readBody(request)) : undefined;
  if (body !== undefined) record(state, body);
  if (sessionId !== undefined) {
    const session = sessions.get(sessionId);
    if (session) return session.transport.handleRequest(request, response, body);
    return sendJsonRpcError(response, 404, FIXTURE_ERROR_CODES.sessionNotFound, 'Session not found');
  }
  if (request.method !== 'POST' || !isInitializeRequest(body)) {
    return sendJsonRpcError(response, 400, FIXTURE_ERROR_CODES.invalidRequest, 'Bad Request: no valid session id');
  }
  const server = sessionServer(state);
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => void sessions.set(id, { server, transport }),
  });
  transport.onclose = () => {
    if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
  };
  await server.connect(transport);
  await transport.handleRequest(request, response, body);
}

/** Records the methods of a POST body, and what a task-augmented `tools/call` asked for. */
function record(state: FixtureState, body: unknown): void {
  state.methods.push(...methodsOf(body));
  for (const message of Array.isArray(body) ? body : [body]) {
    const { method, params } = (message ?? {}) as { method?: string; params?: { name?: string; task?: { ttl?: number } } };
    if (method === 'tools/call' && params?.task !== undefined) {
      state.taskRequests.push({ tool: String(params.name), ...(params.task.ttl === undefined ? {} : { ttl: params.task.ttl }) });
    }
  }
}
