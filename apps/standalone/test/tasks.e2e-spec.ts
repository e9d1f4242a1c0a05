import { randomBytes } from 'node:crypto';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as PgClient } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  bootDistributed,
  type DistributedPlatform,
  ErrorCodes,
  findClusterModule,
  findRepoRoot,
  importClusterModule,
  META_KEYS,
  MODERN_PROTOCOL_VERSION,
  modernHeaders,
  modernMeta,
  type OAuthTestClient,
  obtainToken,
  type RawResponse,
  responseMessage,
  sendRaw,
  sseMessages,
  waitUntil,
} from '@mcp-platform/shared-testing';
import { AdminApi } from './admin-api';
import { adminUserOf, distributedMode, embeddedMode, type Platform, type PlatformMode, seededUrls } from './platforms';

/** The modern era's tasks extension (S-295). */
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** `_meta` key tying a message to its task (S-285). */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';
/** The scheduler's shortest TTL: a client may ask less, it gets this (S-279). */
const MIN_TTL_MS = 10_000;
/** What the scheduler says of a task whose non-idempotent run was cut short by its worker's death. */
const NOT_IDEMPOTENT = /not idempotent/;
/** `export_report` adds 250 rows a second. */
const ROWS_PER_SECOND = 250;
/** Bounds every wait for a task to end: a lost task fails the test instead of hanging it. */
const TASK_END_TIMEOUT_MS = 60_000;

const TERMINAL: readonly string[] = ['completed', 'failed', 'cancelled'];

/** A modern task as `tools/call` creates it and `tasks/get` shows it (S-297, S-300, S-307). */
const ModernTaskSchema = z.looseObject({
  taskId: z.string(),
  status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
  statusMessage: z.string().optional(),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  ttlMs: z.number(),
  pollIntervalMs: z.number(),
  result: z.looseObject({ structuredContent: z.unknown().optional(), isError: z.boolean().optional() }).optional(),
  error: z.looseObject({ code: z.number(), message: z.string() }).optional(),
});
type ModernTask = z.infer<typeof ModernTaskSchema>;
type TaskStatus = ModernTask['status'];

/** The one tool call a test makes as a task, and which tool it was. */
interface CreatedTask {
  taskId: string;
  tool: 'export_report' | 'long_operation';
  era: 'legacy' | 'modern';
}

/** Where a client connects and its bearer header. */
interface Caller {
  url: string;
  headers: Record<string, string>;
}

function errorCodeOf(error: unknown): unknown {
  return (error as { code?: unknown } | undefined)?.code;
}

/** The error `promise` rejects with (the test fails if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A legacy SDK client (1.x, 2025-11-25): tasks through `client.experimental.tasks` and task-augmented requests. */
async function openLegacy({ url, headers }: Caller): Promise<{ client: LegacyClient; close(): Promise<void> }> {
  const client = new LegacyClient({ name: 'e2e-tasks-legacy', version: '1.0.0' });
  const transport = new LegacyTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return {
    client,
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/** A task-augmented `tools/call` through the legacy SDK client: its `CreateTaskResult` (S-275, S-276). */
async function createLegacyTask(client: LegacyClient, tool: CreatedTask['tool'], args: Record<string, unknown>, ttl = 60_000) {
  const created = await client.request({ method: 'tools/call', params: { name: tool, arguments: args } }, CreateTaskResultSchema, { task: { ttl } });
  return created.task;
}

/**
 * A modern SDK client (2.x pinned to 2026-07-28), declaring the tasks extension unless told otherwise. It has
 * no tasks API: `tasks/get` and `tasks/cancel` go through its generic `request` (its transport sets
 * `Mcp-Name` to the task id, S-305).
 */
async function openModern({ url, headers }: Caller, declareTasks = true): Promise<ModernClient> {
  const capabilities = declareTasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {};
  const client = new ModernClient(
    { name: 'e2e-tasks-modern', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } },
  );
  await client.connect(new ModernTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/**
 * A modern `tools/call` with the modern envelope, raw: SDK 2.x refuses a `resultType: "task"` answer to
 * `tools/call` (its codec knows only `complete` and `input_required`), so the test reads the wire.
 */
function modernToolsCall(
  { url, headers }: Caller,
  tool: string,
  args: Record<string, unknown>,
  declareTasks = true,
  timeoutMs = 10_000,
  otherCapabilities: Record<string, unknown> = {},
): Promise<RawResponse> {
  const capabilities = { ...otherCapabilities, ...(declareTasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}) };
  return sendRaw({
    url,
    headers: { ...headers, ...modernHeaders('tools/call', tool) },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: randomBytes(4).readUInt32BE(),
      method: 'tools/call',
      params: { name: tool, arguments: args, _meta: modernMeta({ [META_KEYS.clientCapabilities]: capabilities }) },
    }),
    timeoutMs,
  });
}

/** A modern `tools/call` the server answers with a task: its `CreateTaskResult` (S-297), `resultType` included. */
async function createModernTask(
  caller: Caller,
  tool: CreatedTask['tool'],
  args: Record<string, unknown>,
  otherCapabilities: Record<string, unknown> = {},
): Promise<ModernTask> {
  const answer = await modernToolsCall(caller, tool, args, true, 10_000, otherCapabilities);
  expect(answer.status, answer.body).toBe(200);
  const result = responseMessage(answer)?.result as Record<string, unknown> | undefined;
  expect(result?.['resultType'], answer.body).toBe('task');
  return ModernTaskSchema.parse(result);
}

function modernGet(client: ModernClient, taskId: string): Promise<ModernTask> {
  return client.request({ method: 'tasks/get', params: { taskId } }, ModernTaskSchema);
}

function modernCancel(client: ModernClient, taskId: string): Promise<Record<string, unknown>> {
  return client.request({ method: 'tasks/cancel', params: { taskId } }, z.looseObject({}));
}

/** Polls `get` until the task is terminal (errors count as "not yet": a crashed service comes back). */
function untilTerminal<T extends { status: string }>(get: () => Promise<T>, what: string, timeoutMs = TASK_END_TIMEOUT_MS): Promise<T> {
  return waitUntil(
    async () => {
      const task = await get();
      return TERMINAL.includes(task.status) ? task : undefined;
    },
    { timeoutMs, intervalMs: 250, description: what },
  );
}

/** `_meta` key tagging every message of a `subscriptions/listen` stream with the listen request's id (S-311). */
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** A `subscriptions/listen` request asking for the status of `taskIds` (tasks extension, S-304). */
function taskListenRequest(taskIds: readonly string[], declareTasks: boolean): { id: number; headers: Record<string, string>; body: string } {
  const id = randomBytes(4).readUInt32BE();
  const capabilities = declareTasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {};
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: { notifications: { taskIds }, _meta: modernMeta({ [META_KEYS.clientCapabilities]: capabilities }) },
  });
  return { id, headers: modernHeaders('subscriptions/listen'), body };
}

/** An open `subscriptions/listen` stream, read in the background until closed or `timeoutMs` passed. */
interface TaskListener {
  id: number;
  status: number;
  /** The JSON-RPC messages received so far. */
  messages(): Array<{ method?: string; params?: Record<string, unknown> }>;
  close(): void;
}

/** Opens a `subscriptions/listen` for `taskIds` with raw `fetch` (the 2.x client has no listen API); aborted after `timeoutMs` at the latest. */
async function listenForTasks({ url, headers }: Caller, taskIds: readonly string[], timeoutMs = TASK_END_TIMEOUT_MS): Promise<TaskListener> {
  const request = taskListenRequest(taskIds, true);
  const abort = new AbortController();
  const deadline = setTimeout(() => abort.abort(), timeoutMs);
  const response = await fetch(url, { method: 'POST', headers: { ...headers, ...request.headers }, body: request.body, signal: abort.signal });
  let text = '';
  if (response.body) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    void (async () => {
      for (;;) {
        const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
        if (chunk.done) return;
        text += decoder.decode(chunk.value, { stream: true });
      }
    })();
  }
  return {
    id: request.id,
    status: response.status,
    // Only complete events: the last one may still be arriving.
    messages: () => sseMessages(text.slice(0, text.lastIndexOf('\n\n') + 2)) as ReturnType<TaskListener['messages']>,
    close: () => {
      clearTimeout(deadline);
      abort.abort();
    },
  };
}

/** A result's keys besides `_meta` (which carries the server's info in the modern era). */
function keysBesidesMeta(value: Record<string, unknown>): string[] {
  return Object.keys(value).filter((key) => key !== '_meta');
}

/** One row of the scheduler's table (distributed mode: schema `task_scheduler` of the run's database). */
interface TaskRow {
  id: string;
  status: TaskStatus;
  statusMessage: string | null;
  runOpen: boolean;
  runsStarted: number;
  hasOutcome: boolean;
}

/** The scheduler's rows of `ids`, read from its database, so a test counts runs and sees deletions. */
async function taskRows(platform: DistributedPlatform, ids: readonly string[]): Promise<Map<string, TaskRow>> {
  const client = new PgClient({ connectionString: platform.database.url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const found = await client.query<{
      id: string;
      status: TaskStatus;
      status_message: string | null;
      run_open: boolean;
      runs_started: number;
      has_outcome: boolean;
    }>('SELECT id, status, status_message, run_open, runs_started, outcome IS NOT NULL AS has_outcome FROM task_scheduler.tasks WHERE id = ANY($1)', [ids]);
    return new Map(
      found.rows.map((row) => [
        row.id,
        {
          id: row.id,
          status: row.status,
          statusMessage: row.status_message,
          runOpen: row.run_open,
          runsStarted: row.runs_started,
          hasOutcome: row.has_outcome,
        },
      ]),
    );
  } finally {
    await client.end();
  }
}

/** A bearer header of `user` (default the demo user) for `url`, through a new OAuth client or the given one. */
async function bearer(platform: Platform, url: string, user = platform.demoUser, client?: OAuthTestClient) {
  const token = await obtainToken({ issuer: platform.issuer, resource: url, scope: 'mcp', user, ...(client ? { client } : {}) });
  return { headers: { authorization: `Bearer ${token.access_token}` }, client: token.client };
}

const modes: PlatformMode[] = [embeddedMode(), distributedMode(2)];

describe.each(modes)('MCP tasks, $name mode', (mode) => {
  let platform: Platform;
  let owner: Caller;
  /** The owner on the other broker replica (distributed mode): tasks are read where they were not created. */
  let ownerElsewhere: Caller;
  let ownerOAuthClient: OAuthTestClient;

  beforeAll(async () => {
    platform = await mode.boot();
    const [brokerA, brokerB] = platform.mode === 'distributed' ? platform.brokerUrls : [platform.baseUrl, platform.baseUrl];
    const url = seededUrls(brokerA ?? '').demo;
    // Every broker replica shares one public URL, so the token's audience holds on broker B too.
    const signedIn = await bearer(platform, url);
    owner = { url, headers: signedIn.headers };
    ownerElsewhere = { url: seededUrls(brokerB ?? '').demo, headers: signedIn.headers };
    ownerOAuthClient = signedIn.client;
  });
  afterAll(async () => {
    await platform?.stop();
  });

  describe('legacy client (@modelcontextprotocol/sdk 1.x, 2025-11-25)', () => {
    let client: LegacyClient;
    let close: () => Promise<void>;

    beforeAll(async () => {
      ({ client, close } = await openLegacy(owner));
    });
    afterAll(async () => {
      await close?.();
    });

    it('declares tasks with list, cancel and task-augmented tools/call (S-272)', () => {
      expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    });

    it('callToolStream creates an export_report task, polls it and yields the result with related-task in _meta (S-276, S-277, S-281, S-285)', async () => {
      const messages: Array<{
        type: string;
        task?: { taskId: string; status: string; ttl?: number | null; pollInterval?: number };
        result?: Record<string, unknown>;
      }> = [];
      for await (const message of client.experimental.tasks.callToolStream({ name: 'export_report', arguments: { seconds: 2 } }, CallToolResultSchema, {
        task: { ttl: 60_000 },
      })) {
        messages.push(message as (typeof messages)[number]);
        expect(messages.length, 'a bounded number of polls').toBeLessThan(30);
      }
      const [created, ...rest] = messages;
      const last = rest.at(-1);
      expect(created?.type).toBe('taskCreated');
      expect(created?.task).toMatchObject({
        status: 'working',
        ttl: 60_000,
        pollInterval: expect.any(Number),
        createdAt: expect.any(String),
        lastUpdatedAt: expect.any(String),
      });
      const taskId = created?.task?.taskId ?? '';
      expect(taskId).toMatch(/^[A-Za-z0-9_-]{22,}$/);
      expect(rest.slice(0, -1).map((message) => message.type)).toEqual(rest.slice(0, -1).map(() => 'taskStatus'));
      expect(
        rest
          .slice(0, -1)
          .map((message) => message.task?.status)
          .at(-1),
      ).toBe('completed');
      expect(last?.type).toBe('result');
      expect(last?.result).toMatchObject({ structuredContent: { rows: 2 * ROWS_PER_SECOND, seconds: 2 }, _meta: { [RELATED_TASK]: { taskId } } });

      // A terminal task answers the same result again (S-281), and tasks/get shows it completed.
      await expect(client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)).resolves.toMatchObject({
        structuredContent: { rows: 500, seconds: 2 },
      });
      await expect(client.experimental.tasks.getTask(taskId)).resolves.toMatchObject({ taskId, status: 'completed', ttl: 60_000 });
    });

    it('tasks/result blocks until the task ends (S-281)', async () => {
      const task = await createLegacyTask(client, 'export_report', { seconds: 2 });
      const started = performance.now();
      const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema, { timeout: 30_000 });
      expect(performance.now() - started).toBeGreaterThan(1_000);
      expect(result).toMatchObject({ structuredContent: { rows: 500, seconds: 2 }, _meta: { [RELATED_TASK]: { taskId: task.taskId } } });
    });

    it('a task asking its user is input_required; the elicitation comes on the tasks/result stream and progress on the GET stream, both with related-task; then the result (S-285, S-286)', async () => {
      const asker = new LegacyClient({ name: 'e2e-tasks-asker', version: '1.0.0' }, { capabilities: { elicitation: {} } });
      const elicitations: Array<Record<string, unknown>> = [];
      asker.setRequestHandler(ElicitRequestSchema, (request) => {
        elicitations.push(request.params as Record<string, unknown>);
        return { action: 'accept', content: { confirmed: true } };
      });
      const transport = new LegacyTransport(new URL(owner.url), { requestInit: { headers: owner.headers } });
      await asker.connect(transport);
      try {
        const progress: number[] = [];
        const messages: Array<{ type: string; task?: { taskId: string; status: string }; result?: Record<string, unknown> }> = [];
        const stream = asker.experimental.tasks.callToolStream({ name: 'export_report', arguments: { seconds: 2, confirm: true } }, CallToolResultSchema, {
          task: { ttl: 60_000 },
          onprogress: (update) => void progress.push(update.progress),
          timeout: 30_000,
        });
        for await (const message of stream) {
          messages.push(message as (typeof messages)[number]);
          expect(messages.length, 'a bounded number of polls').toBeLessThan(30);
        }
        const taskId = messages[0]?.task?.taskId ?? '';
        expect(messages.map((message) => message.task?.status)).toContain('input_required');
        expect(elicitations).toEqual([expect.objectContaining({ message: 'Export a report over 2 s?', _meta: { [RELATED_TASK]: { taskId } } })]);
        expect(messages.at(-1)).toMatchObject({
          type: 'result',
          result: { structuredContent: { rows: 2 * ROWS_PER_SECOND, seconds: 2 }, _meta: { [RELATED_TASK]: { taskId } } },
        });
        // The progress token of the task-augmented call holds for the task's life; the last update may race the end.
        await waitUntil(async () => progress.length >= 1 || undefined, { timeoutMs: 5_000, description: "the task's progress" });
        expect(progress[0]).toBe(1);
      } finally {
        await transport.terminateSession().catch(() => undefined);
        await asker.close();
      }
    });

    it('a task outlives the session that created it: its owner, reconnected in a new session, answers its question on tasks/result and gets the result (S-286, S-289)', async () => {
      const elicitations: Array<Record<string, unknown>> = [];
      const openAsker = async (caller: Caller) => {
        const asker = new LegacyClient({ name: 'e2e-tasks-asker', version: '1.0.0' }, { capabilities: { elicitation: {} } });
        asker.setRequestHandler(ElicitRequestSchema, (request) => {
          elicitations.push(request.params as Record<string, unknown>);
          return { action: 'accept', content: { confirmed: true } };
        });
        const transport = new LegacyTransport(new URL(caller.url), { requestInit: { headers: caller.headers } });
        await asker.connect(transport);
        return { client: asker, close: async () => (await transport.terminateSession().catch(() => undefined), await asker.close()) };
      };
      const first = await openAsker(owner);
      const task = await createLegacyTask(first.client, 'export_report', { seconds: 1, confirm: true });
      // The question is asked while nobody listens: the task waits for input.
      await waitUntil(async () => ((await first.client.experimental.tasks.getTask(task.taskId)).status === 'input_required' ? true : undefined), {
        timeoutMs: 10_000,
        intervalMs: 100,
        description: 'the task to wait for input',
      });
      await first.close();
      // The same user, a new session (on the other broker replica in distributed mode).
      const second = await openAsker(ownerElsewhere);
      try {
        const result = await second.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema, { timeout: 30_000 });
        expect(result).toMatchObject({ structuredContent: { rows: ROWS_PER_SECOND, seconds: 1 }, _meta: { [RELATED_TASK]: { taskId: task.taskId } } });
        expect(elicitations).toEqual([expect.objectContaining({ message: 'Export a report over 1 s?', _meta: { [RELATED_TASK]: { taskId: task.taskId } } })]);
      } finally {
        await second.close();
      }
    });

    it("lists the caller's tasks, newest first (S-282)", async () => {
      const first = await createLegacyTask(client, 'long_operation', { seconds: 0.2, steps: 1 });
      const second = await createLegacyTask(client, 'long_operation', { seconds: 0.2, steps: 1 });
      const { tasks, nextCursor } = await client.experimental.tasks.listTasks();
      expect(nextCursor).toBeUndefined();
      const ids = tasks.map((task) => task.taskId);
      expect(ids).toContain(first.taskId);
      expect(ids.indexOf(second.taskId)).toBeLessThan(ids.indexOf(first.taskId));
      expect(tasks.find((task) => task.taskId === first.taskId)).toMatchObject({ ttl: 60_000, createdAt: first.createdAt });
      // A forged cursor is -32602 (S-288).
      expect(errorCodeOf(await rejection(client.experimental.tasks.listTasks('not-a-cursor')))).toBe(ErrorCodes.InvalidParams);
    });

    it('cancels a running export_report: cancelled before the answer, the run stopped, tasks/result errors, it never completes (S-283)', async () => {
      const distributed = platform as DistributedPlatform;
      const task = await createLegacyTask(client, 'export_report', { seconds: 3 });
      // Cancel once the report is being built (distributed: its run is open in the scheduler's table).
      if (platform.mode === 'distributed') {
        await waitUntil(async () => (await taskRows(distributed, [task.taskId])).get(task.taskId)?.runOpen, {
          timeoutMs: 5_000,
          description: 'the run to start',
        });
      } else await sleep(500);
      const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
      expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
      if (platform.mode === 'distributed') {
        // The run stopped (S-283: try to stop it): closed well before the report's three seconds, its outcome dropped.
        const closed = await waitUntil(
          async () => {
            const row = (await taskRows(distributed, [task.taskId])).get(task.taskId);
            return row?.runOpen === false ? row : undefined;
          },
          { timeoutMs: 1_500, description: 'the run to stop' },
        );
        expect(closed).toMatchObject({ status: 'cancelled', runsStarted: 1, hasOutcome: false });
      }
      await expect(client.experimental.tasks.getTask(task.taskId)).resolves.toMatchObject({ status: 'cancelled' });
      const resultError = await rejection(client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema));
      expect(errorCodeOf(resultError)).toBe(ErrorCodes.InvalidParams);
      expect(String(resultError)).toMatch(/cancelled/);
      // A terminal task cannot be cancelled again (S-283, S-288).
      expect(errorCodeOf(await rejection(client.experimental.tasks.cancelTask(task.taskId)))).toBe(ErrorCodes.InvalidParams);

      // Past the report's three seconds, it is still cancelled: the run's end did not overwrite it.
      await sleep(4_000);
      await expect(client.experimental.tasks.getTask(task.taskId)).resolves.toMatchObject({ status: 'cancelled' });
      const listed = (await client.experimental.tasks.listTasks()).tasks.find((listedTask) => listedTask.taskId === task.taskId);
      expect(listed?.status).toBe('cancelled');
      if (platform.mode === 'distributed') {
        expect((await taskRows(distributed, [task.taskId])).get(task.taskId)).toMatchObject({ status: 'cancelled', runsStarted: 1, hasOutcome: false });
      }
    });

    it('answers -32602 for an unknown task id (S-288)', async () => {
      const unknown = randomBytes(16).toString('base64url');
      expect(errorCodeOf(await rejection(client.experimental.tasks.getTask(unknown)))).toBe(ErrorCodes.InvalidParams);
      expect(errorCodeOf(await rejection(client.experimental.tasks.getTaskResult(unknown, CallToolResultSchema)))).toBe(ErrorCodes.InvalidParams);
      expect(errorCodeOf(await rejection(client.experimental.tasks.cancelTask(unknown)))).toBe(ErrorCodes.InvalidParams);
    });
  });

  describe('modern client (@modelcontextprotocol/client 2.x, 2026-07-28, tasks extension)', () => {
    /** Reads and cancels through the other broker replica than the one creating the tasks. */
    let client: ModernClient;

    beforeAll(async () => {
      client = await openModern(ownerElsewhere);
    });
    afterAll(async () => {
      await client?.close();
    });

    it('tools/call of export_report answers resultType task, at once readable; tasks/get shows it working, its progress as status message, then completed with its result (S-297, S-298, S-300)', async () => {
      const created = await createModernTask(owner, 'export_report', { seconds: 3 });
      expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: expect.any(Number), pollIntervalMs: expect.any(Number) });
      // spec S-307: the modern words are ttlMs and pollIntervalMs.
      expect(created).not.toHaveProperty('ttl');
      expect(created).not.toHaveProperty('pollInterval');
      // spec S-298: durable before the answer.
      await expect(modernGet(client, created.taskId)).resolves.toMatchObject({ taskId: created.taskId, status: 'working' });
      // No progress notifications for a modern task (S-304): a poller reads how far it got in its status message.
      const progressed = await waitUntil(
        async () => {
          const task = await modernGet(client, created.taskId);
          return task.status === 'working' && task.statusMessage !== undefined ? task : undefined;
        },
        { timeoutMs: 10_000, intervalMs: 200, description: 'the task to show its progress' },
      );
      expect(progressed.statusMessage).toBe(`${ROWS_PER_SECOND} rows`);
      const done = await untilTerminal(() => modernGet(client, created.taskId), 'the modern export_report task to end');
      expect(done).toMatchObject({ status: 'completed', result: { structuredContent: { rows: 3 * ROWS_PER_SECOND, seconds: 3 } } });
      expect(done.error).toBeUndefined();
    });

    it('a task asking its user is input_required with its input requests; tasks/update answers them and it completes (S-300, S-301)', async () => {
      const created = await createModernTask(owner, 'export_report', { seconds: 1, confirm: true }, { elicitation: {} });
      const waiting = await waitUntil(
        async () => {
          const task = await modernGet(client, created.taskId);
          return task.status === 'input_required' ? task : undefined;
        },
        { timeoutMs: 10_000, intervalMs: 100, description: 'the task to ask for input' },
      );
      expect(waiting['inputRequests']).toEqual({
        'input-1': { method: 'elicitation/create', params: expect.objectContaining({ message: 'Export a report over 1 s?' }) },
      });
      const update = (inputResponses: Record<string, unknown>) =>
        client.request({ method: 'tasks/update', params: { taskId: created.taskId, inputResponses } }, z.looseObject({}));
      // An answer to a key the task does not ask is acknowledged and ignored (S-301).
      expect(keysBesidesMeta(await update({ 'input-9': { action: 'accept' } }))).toEqual([]);
      expect((await modernGet(client, created.taskId)).status).toBe('input_required');
      expect(keysBesidesMeta(await update({ 'input-1': { action: 'accept', content: { confirmed: true } } }))).toEqual([]);
      const done = await untilTerminal(() => modernGet(client, created.taskId), 'the confirmed export to end');
      expect(done).toMatchObject({ status: 'completed', result: { structuredContent: { rows: ROWS_PER_SECOND, seconds: 1 } } });
    });

    it('runs long_operation (taskSupport optional) as a task too: the server decides (S-296)', async () => {
      const created = await createModernTask(owner, 'long_operation', { seconds: 0.5, steps: 2 });
      const done = await untilTerminal(() => modernGet(client, created.taskId), 'the modern long_operation task to end');
      expect(done).toMatchObject({ status: 'completed', result: { structuredContent: { seconds: 0.5, steps: 2 } } });
    });

    it('tasks/cancel acknowledges with an empty result; the task stays cancelled and never gets a result (S-302)', async () => {
      const created = await createModernTask(owner, 'export_report', { seconds: 3 });
      expect(keysBesidesMeta(await modernCancel(client, created.taskId))).toEqual([]);
      await expect(modernGet(client, created.taskId)).resolves.toMatchObject({ status: 'cancelled' });
      await sleep(4_000);
      const later = await modernGet(client, created.taskId);
      expect(later.status).toBe('cancelled');
      expect(later.result).toBeUndefined();
      // Cancelling a terminal task is acknowledged all the same (cooperative, S-302).
      expect(keysBesidesMeta(await modernCancel(client, created.taskId))).toEqual([]);
    });

    it('answers -32602 for an unknown task id (S-300)', async () => {
      const unknown = randomBytes(16).toString('base64url');
      expect(errorCodeOf(await rejection(modernGet(client, unknown)))).toBe(ErrorCodes.InvalidParams);
      expect(errorCodeOf(await rejection(modernCancel(client, unknown)))).toBe(ErrorCodes.InvalidParams);
    });

    it('without the extension: export_report is -32021 (HTTP 400), tasks/get is -32021, long_operation runs plainly (S-295)', async () => {
      const raw = await modernToolsCall(owner, 'export_report', { seconds: 1 }, false);
      expect(raw.status).toBe(400);
      expect(responseMessage(raw)?.error).toMatchObject({
        code: ErrorCodes.MissingRequiredClientCapability,
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      });

      const plain = await openModern(owner, false);
      try {
        expect(errorCodeOf(await rejection(plain.callTool({ name: 'export_report', arguments: { seconds: 1 } })))).toBe(
          ErrorCodes.MissingRequiredClientCapability,
        );
        const task = await createModernTask(owner, 'long_operation', { seconds: 0.2, steps: 1 });
        expect(errorCodeOf(await rejection(modernGet(plain, task.taskId)))).toBe(ErrorCodes.MissingRequiredClientCapability);
        expect(errorCodeOf(await rejection(modernCancel(plain, task.taskId)))).toBe(ErrorCodes.MissingRequiredClientCapability);
        const result = await plain.callTool({ name: 'long_operation', arguments: { seconds: 0.2, steps: 1 } });
        expect(result.structuredContent).toEqual({ seconds: 0.2, steps: 1 });
      } finally {
        await plain.close();
      }
    });

    it("subscriptions/listen with taskIds hears notifications/tasks of the caller's task up to completed, tagged; another principal asking for it hears nothing (S-304, S-289, S-309)", async () => {
      // spec S-304: asking for task status without declaring the extension is -32021 naming it.
      const undeclared = taskListenRequest(['any-task-id'], false);
      const refused = await sendRaw({ url: owner.url, headers: { ...owner.headers, ...undeclared.headers }, body: undeclared.body });
      expect(refused.status).toBe(400);
      expect(responseMessage(refused)?.error).toMatchObject({
        code: ErrorCodes.MissingRequiredClientCapability,
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      });

      // The owner through another OAuth client: another principal (tasks are bound to the client).
      const otherPrincipal: Caller = { url: owner.url, headers: (await bearer(platform, owner.url)).headers };
      const created = await createModernTask(owner, 'export_report', { seconds: 3 });
      // The owner listens on the other replica than the one that created the task.
      const mine = await listenForTasks(ownerElsewhere, [created.taskId]);
      const theirs = await listenForTasks(otherPrincipal, [created.taskId]);
      try {
        expect([mine.status, theirs.status]).toEqual([200, 200]);
        for (const listener of [mine, theirs]) {
          await waitUntil(async () => listener.messages()[0], { timeoutMs: 10_000, description: 'the listen acknowledgement' });
          expect(listener.messages()[0]).toMatchObject({
            method: 'notifications/subscriptions/acknowledged',
            params: { notifications: { taskIds: [created.taskId] }, _meta: { [SUBSCRIPTION_ID]: listener.id } },
          });
        }
        const taskNotifications = () => mine.messages().filter((message) => message.method === 'notifications/tasks');
        const heard = await waitUntil(
          async () => (taskNotifications().some((message) => message.params?.['status'] === 'completed') ? taskNotifications() : undefined),
          {
            timeoutMs: TASK_END_TIMEOUT_MS,
            intervalMs: 100,
            description: "the owner's listener to hear the task completed",
          },
        );
        for (const notification of heard) expect(notification.params).toMatchObject({ taskId: created.taskId, _meta: { [SUBSCRIPTION_ID]: mine.id } });
        // Statuses only move forward, and completed is the last.
        expect(heard.map((notification) => notification.params?.['status'])).toEqual([...heard.slice(0, -1).map(() => 'working'), 'completed']);
        const { _meta: tag, ...completed } = heard.at(-1)?.params ?? {};
        expect(tag).toEqual({ [SUBSCRIPTION_ID]: mine.id });
        expect(completed).toMatchObject({ status: 'completed', result: { structuredContent: { rows: 750, seconds: 3 } } });
        // spec S-304: the task as tasks/get shows it.
        await expect(modernGet(client, created.taskId)).resolves.toMatchObject(completed);
        // Every replica got the event when the owner's did; a moment more for a late push that must not come.
        await sleep(500);
        expect(theirs.messages().filter((message) => message.method === 'notifications/tasks')).toEqual([]);
      } finally {
        mine.close();
        theirs.close();
      }
    });
  });

  describe('tenant isolation (S-289)', () => {
    let intruder: Caller;
    let otherClientOfOwner: Caller;

    beforeAll(async () => {
      // A second member of tenant demo, signed in through the owner's OAuth client: only the user differs.
      const other = { username: `demo-other-${randomBytes(3).toString('hex')}`, password: randomBytes(18).toString('base64url') };
      const admin = await AdminApi.signIn(platform, adminUserOf(platform));
      await admin.expect(201, 'POST', '/tenants/demo/users', { ...other, roles: ['member'] });
      intruder = { url: owner.url, headers: (await bearer(platform, owner.url, other, ownerOAuthClient)).headers };
      // The owner through another OAuth client is another principal too (tasks are bound to the client).
      otherClientOfOwner = { url: owner.url, headers: (await bearer(platform, owner.url)).headers };
    });

    it("another user can neither get, fetch, cancel nor list the owner's legacy task, which runs on", async () => {
      const mine = await openLegacy(owner);
      const theirs = await openLegacy(intruder);
      try {
        const task = await createLegacyTask(mine.client, 'export_report', { seconds: 2 });
        expect(errorCodeOf(await rejection(theirs.client.experimental.tasks.getTask(task.taskId)))).toBe(ErrorCodes.InvalidParams);
        expect(errorCodeOf(await rejection(theirs.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)))).toBe(ErrorCodes.InvalidParams);
        expect(errorCodeOf(await rejection(theirs.client.experimental.tasks.cancelTask(task.taskId)))).toBe(ErrorCodes.InvalidParams);
        expect((await theirs.client.experimental.tasks.listTasks()).tasks.map((listed) => listed.taskId)).not.toContain(task.taskId);
        // The refused cancellation changed nothing: the owner gets the report.
        await expect(mine.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).resolves.toMatchObject({
          structuredContent: { rows: 500 },
        });
      } finally {
        await theirs.close();
        await mine.close();
      }
    });

    it("neither another user nor the owner's other OAuth client can get or cancel the owner's modern task", async () => {
      const mine = await openModern(owner);
      const theirs = await openModern(intruder);
      const ownerElsewhere = await openModern(otherClientOfOwner);
      try {
        const task = await createModernTask(owner, 'export_report', { seconds: 1 });
        for (const stranger of [theirs, ownerElsewhere]) {
          expect(errorCodeOf(await rejection(modernGet(stranger, task.taskId)))).toBe(ErrorCodes.InvalidParams);
          expect(errorCodeOf(await rejection(modernCancel(stranger, task.taskId)))).toBe(ErrorCodes.InvalidParams);
        }
        await expect(untilTerminal(() => modernGet(mine, task.taskId), 'the owner’s task to end')).resolves.toMatchObject({ status: 'completed' });
      } finally {
        await Promise.all([mine.close(), theirs.close(), ownerElsewhere.close()]);
      }
    });
  });

  describe('TTL (S-279, S-288)', () => {
    it('a task created with a 10 s ttl answers -32602 once expired and is no longer listed', async () => {
      const { client, close } = await openLegacy(owner);
      try {
        const createdAt = Date.now();
        const task = await createLegacyTask(client, 'long_operation', { seconds: 0.2, steps: 1 }, MIN_TTL_MS);
        expect(task.ttl).toBe(MIN_TTL_MS);
        await expect(client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).resolves.toMatchObject({
          structuredContent: { seconds: 0.2, steps: 1 },
        });
        const expiredAt = await waitUntil(
          async () => {
            const error = await client.experimental.tasks.getTask(task.taskId).then(
              () => undefined,
              (caught: unknown) => caught,
            );
            return error === undefined ? undefined : { at: Date.now(), code: errorCodeOf(error) };
          },
          { timeoutMs: MIN_TTL_MS + 10_000, intervalMs: 250, description: 'the task to expire' },
        );
        expect(expiredAt.code).toBe(ErrorCodes.InvalidParams);
        expect(expiredAt.at - createdAt).toBeGreaterThanOrEqual(MIN_TTL_MS - 500);
        expect(errorCodeOf(await rejection(client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)))).toBe(ErrorCodes.InvalidParams);
        expect(errorCodeOf(await rejection(client.experimental.tasks.cancelTask(task.taskId)))).toBe(ErrorCodes.InvalidParams);
        expect((await client.experimental.tasks.listTasks()).tasks.map((listed) => listed.taskId)).not.toContain(task.taskId);
      } finally {
        await close();
      }
    });
  });
});

/** The work queue's ack wait in the crash tests: the jobs of a dead executor come back within seconds. */
const CRASH_ACK_WAIT_MS = 3_000;
/** How long the killed scheduler stays down: the runs under way end meanwhile, their workers report again later. */
const SCHEDULER_DOWN_MS = 4_000;
/** The scale for the executor's crash test: 200 tasks, one kill -9 in the middle. */
const CRASH_TASKS = 200;
/** Task creations in flight at once in that test. */
const CRASH_CREATE_CONCURRENCY = 4;

/** Polls every task until all are terminal; a failed poll (a service down) counts as "not yet". */
async function untilAllTerminal(
  tasks: readonly CreatedTask[],
  get: (task: CreatedTask) => Promise<{ status: string; statusMessage?: string }>,
  timeoutMs: number,
) {
  const ended = new Map<string, { status: string; statusMessage?: string }>();
  await waitUntil(
    async () => {
      await Promise.all(
        tasks
          .filter((task) => !ended.has(task.taskId))
          .map(async (task) => {
            const seen = await get(task).catch(() => undefined);
            if (seen !== undefined && TERMINAL.includes(seen.status)) ended.set(task.taskId, seen);
          }),
      );
      return ended.size === tasks.length;
    },
    { timeoutMs, intervalMs: 500, description: `${tasks.length} tasks to end` },
  );
  return ended;
}

describe('MCP tasks when a process is killed (SIGKILL), distributed mode', () => {
  let platform: DistributedPlatform;
  /** The owner on broker replica A, then on replica B. */
  let onA: Caller;
  let onB: Caller;
  /** A task created at boot with the shortest TTL: long expired when the scheduler restarts in (c). */
  let expiring: { taskId: string; createdAt: number };

  beforeAll(async () => {
    const startCluster = await importClusterModule(findClusterModule(findRepoRoot()));
    platform = await bootDistributed(startCluster, { brokerReplicas: 2, env: { LOG_LEVEL: 'warn', TASK_ACK_WAIT_MS: String(CRASH_ACK_WAIT_MS) } });
    const [brokerA, brokerB] = platform.brokerUrls;
    const url = seededUrls(brokerA ?? '').demo;
    const { headers } = await bearer(platform, url);
    onA = { url, headers };
    onB = { url: seededUrls(brokerB ?? '').demo, headers };
    const { client, close } = await openLegacy(onB);
    try {
      expiring = { createdAt: Date.now(), taskId: (await createLegacyTask(client, 'long_operation', { seconds: 0.2, steps: 1 }, MIN_TTL_MS)).taskId };
    } finally {
      await close();
    }
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it('(a) the broker that took the tools/calls dies right after: every task completes and is read through the other broker', async () => {
    const onBrokerA = await openLegacy(onA);
    const created: CreatedTask[] = [];
    try {
      for (let index = 0; index < 10; index += 1) {
        created.push({ taskId: (await createLegacyTask(onBrokerA.client, 'export_report', { seconds: 3 })).taskId, tool: 'export_report', era: 'legacy' });
        created.push({ taskId: (await createModernTask(onA, 'long_operation', { seconds: 3, steps: 3 })).taskId, tool: 'long_operation', era: 'modern' });
      }
      const exit = await platform.signalBroker(0, 'SIGKILL');
      expect(exit.signal).toBe('SIGKILL');
    } finally {
      await onBrokerA.close().catch(() => undefined);
    }

    const legacy = await openLegacy(onB);
    const modern = await openModern(onB);
    try {
      const legacyTasks = created.filter((task) => task.era === 'legacy');
      const results = await Promise.all(
        legacyTasks.map((task) => legacy.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema, { timeout: TASK_END_TIMEOUT_MS })),
      );
      results.forEach((result, index) => {
        expect(result).toMatchObject({
          structuredContent: { rows: 3 * ROWS_PER_SECOND, seconds: 3 },
          _meta: { [RELATED_TASK]: { taskId: legacyTasks[index]?.taskId } },
        });
      });
      const modernEnds = await Promise.all(
        created.filter((task) => task.era === 'modern').map((task) => untilTerminal(() => modernGet(modern, task.taskId), `modern task ${task.taskId} to end`)),
      );
      for (const ended of modernEnds) expect(ended).toMatchObject({ status: 'completed', result: { structuredContent: { seconds: 3, steps: 3 } } });

      const listed = (await legacy.client.experimental.tasks.listTasks()).tasks.map((task) => task.taskId);
      expect(listed).toEqual(expect.arrayContaining(created.map((task) => task.taskId)));
      const rows = await taskRows(
        platform,
        created.map((task) => task.taskId),
      );
      expect([...rows.values()].map((row) => [row.status, row.runsStarted])).toEqual(created.map(() => ['completed', 1]));
    } finally {
      await Promise.all([legacy.close(), modern.close()]);
    }
  }, 120_000);

  it(`(b) the tool executor dies mid-way through ${CRASH_TASKS} tasks and restarts: every acknowledged task ends terminal; cut long_operation runs run again, cut export_report runs fail (not idempotent), none runs twice against the rules`, async () => {
    const legacy = await openLegacy(onB);
    const modern = await openModern(onB);
    try {
      // Half legacy, half modern; half export_report (not idempotent), half long_operation (idempotent); a few created at a time.
      const plan = Array.from({ length: CRASH_TASKS }, (_, index) => ({
        tool: index % 2 === 0 ? ('export_report' as const) : ('long_operation' as const),
        era: index % 4 < 2 ? ('legacy' as const) : ('modern' as const),
      }));
      const create = async ({ tool, era }: (typeof plan)[number]): Promise<CreatedTask> => {
        const args = tool === 'export_report' ? { seconds: 1 } : { seconds: 1, steps: 1 };
        const taskId = era === 'legacy' ? (await createLegacyTask(legacy.client, tool, args)).taskId : (await createModernTask(onB, tool, args)).taskId;
        return { taskId, tool, era };
      };
      const created: CreatedTask[] = [];
      for (let index = 0; index < plan.length; index += CRASH_CREATE_CONCURRENCY) {
        created.push(...(await Promise.all(plan.slice(index, index + CRASH_CREATE_CONCURRENCY).map(create))));
      }
      const ids = created.map((task) => task.taskId);
      const toolOf = new Map(created.map((task) => [task.taskId, task.tool]));
      // Kill the executor mid-way: some tasks done, runs of both tools under way, others not started yet.
      await waitUntil(
        async () => {
          const rows = [...(await taskRows(platform, ids)).values()];
          const open = rows.filter((row) => row.runOpen);
          const done = rows.filter((row) => TERMINAL.includes(row.status)).length;
          return done >= CRASH_TASKS / 10 && done <= CRASH_TASKS / 2 && new Set(open.map((row) => toolOf.get(row.id))).size === 2;
        },
        { timeoutMs: 30_000, intervalMs: 100, description: 'some tasks done and runs of both tools under way' },
      );
      expect((await platform.signalProcess('tool-executor', 'SIGKILL')).signal).toBe('SIGKILL');
      // A claim or an ending already on its way lands in a moment; nothing else changes before the ack wait (3 s) ends.
      await sleep(500);
      const atKill = await taskRows(platform, ids);
      const cut = new Set([...atKill.values()].filter((row) => row.runOpen && row.status === 'working').map((row) => row.id));
      expect(new Set([...cut].map((id) => toolOf.get(id)))).toEqual(new Set(['export_report', 'long_operation']));

      await platform.restartProcess('tool-executor');
      // Waits on the scheduler's table (polling 200 tasks through the API would be a client the rate limit stops).
      const rows = await waitUntil(
        async () => {
          const now = await taskRows(platform, ids);
          return [...now.values()].every((row) => TERMINAL.includes(row.status) && !row.runOpen) ? now : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 500, description: `${CRASH_TASKS} tasks to end` },
      );
      // Nothing acknowledged is lost: every task has its row, terminal, its run closed.
      expect(rows.size).toBe(CRASH_TASKS);
      for (const task of created) {
        const row = rows.get(task.taskId);
        const where = `task ${task.taskId} (${task.tool}, ${cut.has(task.taskId) ? 'cut' : 'not running'} at the kill)`;
        expect(row, where).toBeDefined();
        if (!cut.has(task.taskId)) {
          // Done before the kill, or started after the restart: one run, completed.
          expect(row, where).toMatchObject({ status: 'completed', runsStarted: 1 });
        } else if (task.tool === 'long_operation') {
          // Idempotent: run again, once.
          expect(row, where).toMatchObject({ status: 'completed', runsStarted: 2 });
        } else {
          // Not idempotent: never started again; it fails, saying why.
          expect(row, where).toMatchObject({ status: 'failed', runsStarted: 1 });
          expect(row?.statusMessage, where).toMatch(NOT_IDEMPOTENT);
        }
      }
      expect([...atKill.values()].filter((row) => row.runsStarted === 0).length, 'tasks not started at the kill').toBeGreaterThan(CRASH_TASKS / 4);
      const failed = created.filter((task) => rows.get(task.taskId)?.status === 'failed');
      expect(failed.length).toBeGreaterThan(0);
      // What the clients read is what the table says: each task once through its era's tasks/get.
      for (let index = 0; index < created.length; index += CRASH_CREATE_CONCURRENCY) {
        await Promise.all(
          created.slice(index, index + CRASH_CREATE_CONCURRENCY).map(async (task) => {
            const seen = task.era === 'legacy' ? await legacy.client.experimental.tasks.getTask(task.taskId) : await modernGet(modern, task.taskId);
            expect(seen.status, `task ${task.taskId} through tasks/get`).toBe(rows.get(task.taskId)?.status);
          }),
        );
      }
      // How the failure reads to each era: tasks/result answers an error (S-281), tasks/get carries one (S-300).
      const failedLegacy = failed.find((task) => task.era === 'legacy');
      const failedModern = failed.find((task) => task.era === 'modern');
      if (failedLegacy) {
        const error = await rejection(legacy.client.experimental.tasks.getTaskResult(failedLegacy.taskId, CallToolResultSchema, { timeout: 10_000 }));
        expect(String(error)).toMatch(NOT_IDEMPOTENT);
      }
      if (failedModern) {
        const seen = await modernGet(modern, failedModern.taskId);
        expect(seen).toMatchObject({ status: 'failed', error: { message: expect.stringMatching(NOT_IDEMPOTENT) } });
      }
    } finally {
      await Promise.all([legacy.close(), modern.close()]);
    }
  }, 240_000);

  it('(c) the task scheduler dies mid-way and restarts: every task acknowledged before ends terminal, none runs twice against the rules; expired rows are gone', async () => {
    const legacy = await openLegacy(onB);
    const modern = await openModern(onB);
    try {
      const created: CreatedTask[] = [];
      for (let index = 0; index < 20; index += 1) {
        if (index % 2 === 0)
          created.push({ taskId: (await createLegacyTask(legacy.client, 'export_report', { seconds: 3 })).taskId, tool: 'export_report', era: 'legacy' });
        else created.push({ taskId: (await createModernTask(onB, 'long_operation', { seconds: 3, steps: 3 })).taskId, tool: 'long_operation', era: 'modern' });
      }
      const ids = created.map((task) => task.taskId);
      // Mid-way: some tasks done, others running.
      await waitUntil(
        async () => {
          const rows = [...(await taskRows(platform, ids)).values()];
          return rows.some((row) => row.status === 'completed') && rows.some((row) => row.runOpen);
        },
        { timeoutMs: 20_000, intervalMs: 200, description: 'some tasks done and others running' },
      );
      // By now the boot task's TTL has passed; the restart's sweep must delete it.
      await sleep(Math.max(0, expiring.createdAt + MIN_TTL_MS - Date.now()));
      expect((await platform.signalProcess('task-scheduler', 'SIGKILL')).signal).toBe('SIGKILL');

      // While it is down, a new task is refused, not acknowledged.
      const refused = await modernToolsCall(onB, 'long_operation', { seconds: 1, steps: 1 }, true, 30_000);
      expect((responseMessage(refused)?.result as { resultType?: unknown } | undefined)?.resultType).not.toBe('task');
      expect(responseMessage(refused)?.error?.code).toBe(ErrorCodes.InternalError);

      // Down for a while, as a crashed pod is: runs end and claims come meanwhile, and are tried again.
      await sleep(SCHEDULER_DOWN_MS);
      await platform.restartProcess('task-scheduler');
      const ends = await untilAllTerminal(
        created,
        (task) => (task.era === 'legacy' ? legacy.client.experimental.tasks.getTask(task.taskId) : modernGet(modern, task.taskId)),
        120_000,
      );
      expect(ends.size).toBe(created.length);
      const rows = await taskRows(platform, [...ids, expiring.taskId]);
      expect(rows.has(expiring.taskId)).toBe(false);
      for (const task of created) {
        const row = rows.get(task.taskId);
        expect(row, `task ${task.taskId}`).toBeDefined();
        expect(row?.runOpen).toBe(false);
        if (row?.status === 'completed') {
          expect(row.runsStarted).toBeGreaterThanOrEqual(1);
        } else {
          // A claim whose answer died with the scheduler leaves a run open; a non-idempotent tool then fails rather than run twice.
          expect(row, `task ${task.taskId} (${task.tool})`).toMatchObject({ status: 'failed', statusMessage: expect.stringMatching(NOT_IDEMPOTENT) });
        }
        if (task.tool === 'export_report') expect(row?.runsStarted).toBeLessThanOrEqual(1);
      }
    } finally {
      await Promise.all([legacy.close(), modern.close()]);
    }
  }, 180_000);
});
