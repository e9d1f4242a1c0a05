import {
  type CallToolResult,
  completable,
  type InputRequest,
  inputRequired,
  inputResponse,
  type InputResponseView,
  McpServer,
  type McpServerFactory,
  ResourceTemplate,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import {
  addedToolResult,
  askElicitation,
  askResult,
  CATALOG_RESOURCES,
  type CatalogState,
  completeGreetName,
  ECHO_OUTPUT_SCHEMA,
  echoResult,
  FAIL_RESULT,
  GREET_PROMPT,
  greetMessages,
  LOG_LEVEL,
  LOGGED_RESULT,
  NOTE_TEMPLATE,
  noteText,
  RESOURCE_MIME_TYPE,
  rootsResult,
  runSlow,
  samplingRequest,
  samplingResult,
  slowResult,
  textResult,
  TOOL_INPUT_SCHEMAS,
  UPSTREAM_SERVER_INFO,
} from './upstream-catalog';

/** The key of the one embedded request each of `ask`, `sample` and `roots` makes. */
export const INPUT_KEYS = { ask: 'answer', sample: 'sample', roots: 'roots' } as const;

/**
 * The answer of `ask`/`sample`/`roots` on the stateless 2025 leg: a stateless server cannot receive
 * the client's answer to a server-to-client request (it would reach a fresh instance), so it says so
 * at once instead of waiting for an answer that never comes.
 */
export const NEEDS_MODERN_ERA = textResult('this tool needs the 2026-07-28 era on this fixture (the stateless 2025 leg cannot receive answers)', true);

/**
 * The per-request factory of the modern fixture (SDK 2.x): a fresh `McpServer` with the shared
 * catalog, read from `state` each time, so a description change is seen by the very next request.
 * On the 2026-07-28 era `ask`, `sample` and `roots` use multi round-trip requests (`input_required`,
 * then the client's retry with `inputResponses`), the SDK's replacement for server-to-client requests.
 */
export function modernCatalogFactory(state: CatalogState): McpServerFactory {
  return ({ era }) => {
    const server = new McpServer(UPSTREAM_SERVER_INFO, {
      capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, logging: {} },
    });
    registerTools(server, state, era === 'modern');
    for (const name of state.addedTools()) server.registerTool(name, { description: state.description(name) }, () => addedToolResult(name));
    registerResources(server);
    server.registerPrompt(
      GREET_PROMPT.name,
      { description: GREET_PROMPT.description, argsSchema: z.object({ name: completable(z.string(), (value) => completeGreetName(value)) }) },
      ({ name }) => ({ messages: greetMessages(name) }),
    );
    return server;
  };
}

function registerTools(server: McpServer, state: CatalogState, modern: boolean): void {
  const config = <Name extends keyof typeof TOOL_INPUT_SCHEMAS>(name: Name) => ({
    description: state.description(name),
    inputSchema: TOOL_INPUT_SCHEMAS[name],
  });
  server.registerTool('echo', { ...config('echo'), outputSchema: ECHO_OUTPUT_SCHEMA }, ({ text }) => echoResult(text));
  server.registerTool('slow', config('slow'), async ({ steps, stepMs }, ctx) => {
    const run = await runSlow(steps, stepMs, ctx.mcpReq.signal, progressReporter(ctx));
    state.recordSlow(run);
    return slowResult(run);
  });
  server.registerTool('log', config('log'), async ({ message }, ctx) => {
    await ctx.mcpReq.notify({ method: 'notifications/message', params: { level: LOG_LEVEL, data: message } });
    return LOGGED_RESULT;
  });
  server.registerTool('ask', config('ask'), ({ question }, ctx) =>
    modern
      ? answerOrAsk(
          ctx,
          INPUT_KEYS.ask,
          (view) => (view.kind === 'elicit' ? askResult(view.action, view.content) : undefined),
          () => inputRequired.elicit(askElicitation(question)),
        )
      : NEEDS_MODERN_ERA,
  );
  server.registerTool('sample', config('sample'), ({ prompt }, ctx) =>
    modern
      ? answerOrAsk(
          ctx,
          INPUT_KEYS.sample,
          (view) => (view.kind === 'sampling' ? samplingResult(view.result.content) : undefined),
          () => inputRequired.createMessage(samplingRequest(prompt)),
        )
      : NEEDS_MODERN_ERA,
  );
  server.registerTool('roots', config('roots'), (_args, ctx) =>
    modern
      ? answerOrAsk(
          ctx,
          INPUT_KEYS.roots,
          (view) => (view.kind === 'roots' ? rootsResult(view.roots) : undefined),
          () => inputRequired.listRoots(),
        )
      : NEEDS_MODERN_ERA,
  );
  server.registerTool('fail', config('fail'), () => FAIL_RESULT);
}

/**
 * One multi round-trip step: the result when the retried request carries the answer under `key`,
 * otherwise `input_required` with the embedded request (the client fulfils it and retries).
 */
function answerOrAsk(ctx: ServerContext, key: string, read: (view: InputResponseView) => CallToolResult | undefined, embedded: () => InputRequest) {
  return read(inputResponse(ctx.mcpReq.inputResponses, key)) ?? inputRequired({ inputRequests: { [key]: embedded() } });
}

/** Progress notifications for `slow`, only when the caller asked for them with a progress token. */
function progressReporter(ctx: ServerContext) {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  return (progress: number, total: number) => ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total } });
}

function registerResources(server: McpServer): void {
  for (const { name, uri, text } of CATALOG_RESOURCES) {
    server.registerResource(name, uri, { mimeType: RESOURCE_MIME_TYPE }, () => ({ contents: [{ uri, mimeType: RESOURCE_MIME_TYPE, text }] }));
  }
  server.registerResource(
    NOTE_TEMPLATE.name,
    new ResourceTemplate(NOTE_TEMPLATE.uriTemplate, { list: undefined }),
    { mimeType: RESOURCE_MIME_TYPE },
    (uri, variables) => ({ contents: [{ uri: uri.href, mimeType: RESOURCE_MIME_TYPE, text: noteText(String(variables['id'])) }] }),
  );
}
