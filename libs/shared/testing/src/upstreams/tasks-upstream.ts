import type { ServerResponse } from 'node:http';
import { listenOnLoopback, parseJsonBody, readBody } from './upstream-http';

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const MODERN = '2026-07-28';

/** What the tasks fixture did with one of its tasks. */
export interface FixtureTask {
  taskId: string;
  tool: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  /** The `inputResponses` of each `tasks/update` it got, in order. */
  updates: Array<Record<string, unknown>>;
  result?: Record<string, unknown>;
  inputRequests?: Record<string, unknown>;
}

/** A running 2026-07-28 upstream that declares the tasks extension (SEP-2663), on 127.0.0.1. */
export interface TasksUpstream {
  readonly url: string;
  /** Every request's method, in order. */
  readonly methods: readonly string[];
  /** The tasks it created, by id. */
  readonly tasks: ReadonlyMap<string, FixtureTask>;
  close(): Promise<void>;
}

/** The fixture's tools: `report` answers at once; `long_job` and `ask_job` become tasks with the extension; `must_task` requires it. */
export const TASKS_UPSTREAM_TOOLS = ['report', 'long_job', 'ask_job', 'must_task'] as const;

const objectSchema = { type: 'object' } as const;
const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

type Answer = Record<string, unknown> | { error: { code: number; message: string; data?: unknown } };

/** The fixture's tasks and what it answers (one instance per fixture). */
class FixtureState {
  readonly methods: string[] = [];
  readonly tasks = new Map<string, FixtureTask>();
  private next = 0;

  answer(method: string, params: Record<string, unknown>): Answer {
    const meta = (params['_meta'] ?? {}) as Record<string, unknown>;
    const capabilities = (meta['io.modelcontextprotocol/clientCapabilities'] ?? {}) as { extensions?: Record<string, unknown> };
    const declared = capabilities.extensions?.[TASKS_EXTENSION] !== undefined;
    if (method === 'server/discover')
      return {
        supportedVersions: [MODERN],
        capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'tasks-fixture', version: '1.0.0' } },
      };
    if (method === 'tools/list') return { tools: TASKS_UPSTREAM_TOOLS.map((name) => ({ name, inputSchema: objectSchema })), ttlMs: 0, cacheScope: 'private' };
    if (method === 'tools/call') return this.call(params, declared);
    if (!method.startsWith('tasks/')) return { error: { code: -32601, message: `no ${method}` } };
    if (!declared) return { error: { code: -32021, message: 'declare the tasks extension' } };
    const task = this.tasks.get(String(params['taskId']));
    if (!task) return { error: { code: -32602, message: 'unknown task' } };
    return this.taskMethod(method, task, params);
  }

  private taskMethod(method: string, task: FixtureTask, params: Record<string, unknown>): Answer {
    if (method === 'tasks/get') return detailed(task);
    if (method === 'tasks/cancel') {
      if (task.status === 'working' || task.status === 'input_required') task.status = 'cancelled';
      return {};
    }
    if (method === 'tasks/update') {
      const responses = (params['inputResponses'] ?? {}) as Record<string, { content?: { colour?: unknown } }>;
      task.updates.push(responses);
      if (task.status === 'input_required' && responses['colour']) {
        task.status = 'completed';
        task.result = text(`colour: ${String(responses['colour'].content?.colour)}`);
      }
      return {};
    }
    return { error: { code: -32601, message: `no ${method}` } };
  }

  private call(params: Record<string, unknown>, declared: boolean): Answer {
    const name = String(params['name']);
    const args = (params['arguments'] ?? {}) as Record<string, unknown>;
    if (name === 'report') return text('report ready');
    if (!declared) {
      if (name !== 'must_task') return text(`${name} ran without a task`);
      const requiredCapabilities = { extensions: { [TASKS_EXTENSION]: {} } };
      return { error: { code: -32021, message: 'must_task runs as a task only', data: { requiredCapabilities } } };
    }
    this.next += 1;
    const task: FixtureTask = { taskId: `up-${this.next}`, tool: name, status: 'working', updates: [] };
    this.tasks.set(task.taskId, task);
    if (name === 'ask_job') {
      task.status = 'input_required';
      const requestedSchema = { type: 'object', properties: { colour: { type: 'string' } } };
      task.inputRequests = { colour: { method: 'elicitation/create', params: { mode: 'form', message: 'Which colour?', requestedSchema } } };
    } else {
      const complete = (): void => {
        if (task.status !== 'working') return;
        task.status = 'completed';
        task.result = text(`${name} done`);
      };
      setTimeout(complete, typeof args['ms'] === 'number' ? args['ms'] : 300);
    }
    const { result: _none, inputRequests: _asked, ...created } = detailed(task);
    return { ...created, status: 'working', resultType: 'task' };
  }
}

function detailed(task: FixtureTask): Record<string, unknown> {
  const at = new Date().toISOString();
  return {
    taskId: task.taskId,
    status: task.status,
    createdAt: at,
    lastUpdatedAt: at,
    ttlMs: 60_000,
    pollIntervalMs: 100,
    ...(task.status === 'completed' ? { result: { ...task.result, resultType: 'complete' } } : {}),
    ...(task.status === 'input_required' ? { inputRequests: task.inputRequests } : {}),
  };
}

const send = (response: ServerResponse, body: unknown) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/**
 * Starts a hand-written 2026-07-28 upstream with the tasks extension (neither SDK 2.x package speaks
 * SEP-2663, so the wire is written here): `server/discover` declares the extension; `tools/call` of a
 * task tool from a request that declared the extension answers a `CreateTaskResult`; `tasks/get` the
 * DetailedTask; `tasks/update` takes answers; `tasks/cancel` cancels. `long_job` completes `ms` ms
 * (default 300) after it started; `ask_job` asks `colour` (an elicitation) and completes with the answer;
 * `must_task` answers -32021 to a request without the extension.
 */
export async function startTasksUpstream(): Promise<TasksUpstream> {
  const state = new FixtureState();
  const http = await listenOnLoopback(async (request, response) => {
    if (request.method !== 'POST') {
      response.writeHead(405).end();
      return;
    }
    const message = parseJsonBody(await readBody(request)) as { id?: number | string; method: string; params?: Record<string, unknown> };
    state.methods.push(message.method);
    if (message.id === undefined) {
      response.writeHead(202).end();
      return;
    }
    const outcome = state.answer(message.method, message.params ?? {});
    if ('error' in outcome) send(response, { jsonrpc: '2.0', id: message.id, error: outcome.error });
    else send(response, { jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', ...outcome } });
  });
  return {
    url: `${http.origin}/mcp`,
    get methods() {
      return [...state.methods];
    },
    tasks: state.tasks,
    close: () => http.close(),
  };
}
