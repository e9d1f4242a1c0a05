import { z } from 'zod';

/**
 * The catalog every upstream fixture serves (legacy HTTP, HTTP+SSE, stdio, modern), whatever its SDK:
 * the names, schemas, texts and results live here once, so the fixtures of the two eras cannot drift.
 * Each fixture wires these definitions into its own SDK; nothing here imports an SDK.
 */

/** The name and version every fixture reports (`initialize`, `server/discover`). */
export const UPSTREAM_SERVER_INFO = { name: 'fixture-upstream', version: '1.0.0' } as const;

/** The tools of the catalog, in the order `tools/list` gives them. */
export const CATALOG_TOOL_NAMES = ['echo', 'slow', 'log', 'ask', 'sample', 'roots', 'fail'] as const;

/** A tool of the catalog. */
export type CatalogToolName = (typeof CATALOG_TOOL_NAMES)[number];

/** Upper bounds of `slow`, so a careless caller cannot keep a fixture busy for long. */
export const SLOW_LIMITS = { maxSteps: 1_000, maxStepMs: 10_000 } as const;

/** Input schemas (Zod) of the catalog's tools; both SDKs accept Zod 4 objects. */
export const TOOL_INPUT_SCHEMAS = {
  echo: z.object({ text: z.string() }),
  slow: z.object({
    steps: z.number().int().min(0).max(SLOW_LIMITS.maxSteps),
    stepMs: z.number().int().min(0).max(SLOW_LIMITS.maxStepMs),
  }),
  log: z.object({ message: z.string() }),
  ask: z.object({ question: z.string() }),
  sample: z.object({ prompt: z.string() }),
  roots: z.object({}),
  fail: z.object({}),
} as const satisfies Record<CatalogToolName, z.ZodObject>;

/** Output schema of `echo`, whose result carries `structuredContent`. */
export const ECHO_OUTPUT_SCHEMA = z.object({ text: z.string() });

/** The descriptions a fixture starts with (`setToolDescription` changes them). */
export const INITIAL_TOOL_DESCRIPTIONS: Readonly<Record<CatalogToolName, string>> = {
  echo: 'Echoes the text back, as text and as structured content',
  slow: 'Works for steps × stepMs milliseconds, reporting progress after each step; stops when cancelled',
  log: 'Sends the message as a logging notification (level info), then answers "logged"',
  ask: 'Asks the user the question (form elicitation, one string field "answer")',
  sample: "Asks the client's model to answer the prompt (sampling)",
  roots: "Lists the client's roots",
  fail: 'Always fails with a tool error',
};

/** A text-only tool result, shaped as both eras' `CallToolResult`. */
export interface CatalogToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A result with one text block. */
export function textResult(text: string, isError = false): CatalogToolResult {
  return isError ? { content: [{ type: 'text', text }], isError: true } : { content: [{ type: 'text', text }] };
}

/** `echo`: `echo: <text>` and `structuredContent: { text }`. */
export function echoResult(text: string): CatalogToolResult {
  return { content: [{ type: 'text', text: `echo: ${text}` }], structuredContent: { text } };
}

/** `fail`: a tool error (not a protocol error), so the caller sees `isError: true`. */
export const FAIL_RESULT: CatalogToolResult = textResult('failed on purpose', true);

/** What `log` sends before answering. */
export const LOG_LEVEL = 'info';

/** `log`'s answer once the notification is sent. */
export const LOGGED_RESULT: CatalogToolResult = textResult('logged');

/** Reports one step of `slow`. */
export type ProgressReporter = (progress: number, total: number) => Promise<void>;

/** How one call of `slow` ended: all its steps, or cancelled after some. */
export interface SlowRun {
  readonly steps: number;
  readonly stepsDone: number;
  readonly cancelled: boolean;
}

/**
 * `slow`: `steps` pauses of `stepMs`, a progress report after each (only when `report` is given, i.e.
 * the caller sent a progress token). Stops as soon as `signal` aborts, reporting nothing more: a
 * cancelled request gets no result either (the SDKs drop answers to cancelled requests).
 */
export async function runSlow(steps: number, stepMs: number, signal: AbortSignal, report?: ProgressReporter): Promise<SlowRun> {
  for (let step = 1; step <= steps; step += 1) {
    if (!(await pause(stepMs, signal))) return { steps, stepsDone: step - 1, cancelled: true };
    await report?.(step, steps);
  }
  return { steps, stepsDone: steps, cancelled: signal.aborted };
}

/** `slow`'s answer (sent only when the run was not cancelled). */
export function slowResult(run: SlowRun): CatalogToolResult {
  return run.cancelled ? textResult(`cancelled after ${run.stepsDone} steps`, true) : textResult(`done after ${run.steps} steps`);
}

/** Waits `ms`, or less if `signal` aborts; resolves `false` when aborted. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  return new Promise<boolean>((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The elicitation `ask` sends: form mode, one required string field `answer`. */
export function askElicitation(question: string) {
  return {
    mode: 'form' as const,
    message: question,
    requestedSchema: {
      type: 'object' as const,
      properties: { answer: { type: 'string' as const, title: 'Answer' } },
      required: ['answer'],
    },
  };
}

/** `ask`'s answer: `answer: <x>` when the user accepted, `declined` otherwise (declined or cancelled). */
export function askResult(action: string, content: Record<string, unknown> | undefined): CatalogToolResult {
  const answer = content?.['answer'];
  return action === 'accept' && answer !== undefined ? textResult(`answer: ${String(answer)}`) : textResult('declined');
}

/** The sampling request `sample` sends. */
export function samplingRequest(prompt: string) {
  return {
    messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt } }],
    maxTokens: 100,
  };
}

/** `sample`'s answer: the text of the model's message (its text blocks joined, when it sent several). */
export function samplingResult(content: unknown): CatalogToolResult {
  const blocks = (Array.isArray(content) ? content : [content]) as { type?: unknown; text?: unknown }[];
  const texts = blocks.filter((block) => block?.type === 'text' && typeof block.text === 'string').map((block) => String(block.text));
  return texts.length > 0 ? textResult(texts.join('\n')) : textResult('the model answered without text', true);
}

/** `roots`' answer: the root URIs joined by `, ` (empty when the client has none). */
export function rootsResult(roots: readonly { uri: string }[]): CatalogToolResult {
  return textResult(roots.map((root) => root.uri).join(', '));
}

/** A tool added at run time by `addTool(name)`: it answers `<name> called`. */
export function addedToolResult(name: string): CatalogToolResult {
  return textResult(`${name} called`);
}

/** The description of a tool added by `addTool(name)`. */
export function addedToolDescription(name: string): string {
  return `Added at run time; answers "${name} called"`;
}

/** The static resources of the catalog. */
export const CATALOG_RESOURCES = [
  { name: 'memo-one', uri: 'memo://one', text: 'first memo' },
  { name: 'memo-two', uri: 'memo://two', text: 'second memo' },
] as const;

/** The resource template of the catalog, and what its reads answer. */
export const NOTE_TEMPLATE = { name: 'note', uriTemplate: 'memo://notes/{id}' } as const;

/** The text of `memo://notes/<id>`. */
export function noteText(id: string): string {
  return `note ${id}`;
}

/** The MIME type of every catalog resource. */
export const RESOURCE_MIME_TYPE = 'text/plain';

/** The prompt of the catalog. */
export const GREET_PROMPT = { name: 'greet', description: 'Greets someone by name' } as const;

/** The values `greet`'s `name` argument completes from. */
export const GREET_NAMES = ['Ada', 'Alan', 'Grace'] as const;

/** Completion of `greet`'s `name`: the values that start with what was typed (case-sensitive). */
export function completeGreetName(prefix: string | undefined): string[] {
  return GREET_NAMES.filter((name) => name.startsWith(prefix ?? ''));
}

/** `greet`'s one user message. */
export function greetMessages(name: string) {
  return [{ role: 'user' as const, content: { type: 'text' as const, text: `Hello, ${name}!` } }];
}

/**
 * The tool definitions that change at run time (descriptions, added tools), shared by every session
 * a fixture serves: a session opened after a change sees the changed catalog.
 */
export class CatalogState {
  private readonly descriptions = new Map<string, string>(Object.entries(INITIAL_TOOL_DESCRIPTIONS));
  private readonly added: string[] = [];
  private readonly slowRunsSeen: SlowRun[] = [];

  /** The description of a tool of the catalog or one added. */
  description(name: string): string {
    const description = this.descriptions.get(name);
    if (description === undefined) throw new Error(`no tool "${name}" in the upstream catalog`);
    return description;
  }

  /** Changes a tool's description; throws for an unknown tool. */
  setDescription(name: string, text: string): void {
    this.description(name);
    this.descriptions.set(name, text);
  }

  /** Adds a tool (`addedToolResult`); throws when the name is taken. */
  addTool(name: string): void {
    if (this.descriptions.has(name)) throw new Error(`the upstream catalog already has a tool "${name}"`);
    this.descriptions.set(name, addedToolDescription(name));
    this.added.push(name);
  }

  /** The tools added so far, in order. */
  addedTools(): readonly string[] {
    return [...this.added];
  }

  /** Remembers how a call of `slow` ended (a fixture shows it, so a test can see a cancel arrive upstream). */
  recordSlow(run: SlowRun): void {
    this.slowRunsSeen.push(run);
  }

  /** Every call of `slow` that ended, in order. */
  slowRuns(): readonly SlowRun[] {
    return [...this.slowRunsSeen];
  }
}
