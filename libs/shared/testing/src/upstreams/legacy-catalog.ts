import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer, type RegisteredTool, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
  type ServerNotification,
  type ServerRequest,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  addedToolResult,
  askElicitation,
  askResult,
  CATALOG_RESOURCES,
  type CatalogState,
  type CatalogToolResult,
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
  TOOL_INPUT_SCHEMAS,
  UPSTREAM_SERVER_INFO,
} from './upstream-catalog';

/** What a 1.x tool handler receives besides its arguments. */
type LegacyExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * One connection's server (SDK 1.x `McpServer`, which serves one transport): its registered tools, so
 * a description change reaches a live session as `notifications/tools/list_changed`, and the URIs the
 * client subscribed to, so `touch(uri)` notifies exactly the subscribers.
 */
export class LegacyCatalogServer {
  readonly server: McpServer;
  private readonly tools: Map<string, RegisteredTool>;
  private readonly subscriptions = new Set<string>();

  constructor(private readonly state: CatalogState) {
    this.server = new McpServer(UPSTREAM_SERVER_INFO, {
      capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, logging: {} },
    });
    this.tools = new Map(registerTools(this.server, state));
    for (const name of state.addedTools()) this.tools.set(name, registerAddedTool(this.server, state, name));
    registerResources(this.server);
    registerGreetPrompt(this.server);
    this.server.server.setRequestHandler(SubscribeRequestSchema, (request) => {
      this.subscriptions.add(request.params.uri);
      return {};
    });
    this.server.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
      this.subscriptions.delete(request.params.uri);
      return {};
    });
  }

  /** Re-reads a tool's description from the state; the SDK sends `notifications/tools/list_changed`. */
  refreshDescription(name: string): void {
    this.tools.get(name)?.update({ description: this.state.description(name) });
  }

  /** Registers a tool the state gained; the SDK sends `notifications/tools/list_changed`. */
  addTool(name: string): void {
    if (!this.tools.has(name)) this.tools.set(name, registerAddedTool(this.server, this.state, name));
  }

  /** The URIs the client subscribed to now. */
  subscribed(): string[] {
    return [...this.subscriptions];
  }

  /** Sends `notifications/resources/updated` when the client subscribed to `uri` (`unasked`: even when it did not, as a hostile server would). */
  async touch(uri: string, unasked = false): Promise<boolean> {
    if ((!unasked && !this.subscriptions.has(uri)) || !this.server.isConnected()) return false;
    await this.server.server.sendResourceUpdated({ uri });
    return true;
  }
}

/** Registers the catalog's tools; returns them by name, for later description changes. */
function registerTools(server: McpServer, state: CatalogState): [string, RegisteredTool][] {
  const config = <Name extends keyof typeof TOOL_INPUT_SCHEMAS>(name: Name) => ({
    description: state.description(name),
    inputSchema: TOOL_INPUT_SCHEMAS[name],
  });
  return [
    ['echo', server.registerTool('echo', { ...config('echo'), outputSchema: ECHO_OUTPUT_SCHEMA }, ({ text }) => echoResult(text))],
    [
      'slow',
      server.registerTool('slow', config('slow'), async ({ steps, stepMs }, extra) => {
        const run = await runSlow(steps, stepMs, extra.signal, progressReporter(extra));
        state.recordSlow(run);
        return slowResult(run);
      }),
    ],
    [
      'log',
      server.registerTool('log', config('log'), async ({ message }, extra) => {
        await extra.sendNotification({ method: 'notifications/message', params: { level: LOG_LEVEL, data: message } });
        return LOGGED_RESULT;
      }),
    ],
    ['ask', server.registerTool('ask', config('ask'), ({ question }, extra) => ask(question, extra))],
    ['sample', server.registerTool('sample', config('sample'), ({ prompt }, extra) => sample(prompt, extra))],
    ['roots', server.registerTool('roots', config('roots'), (_args, extra) => listRoots(extra))],
    ['fail', server.registerTool('fail', config('fail'), () => FAIL_RESULT)],
  ];
}

/** Progress notifications for `slow`, only when the caller asked for them with a progress token. */
function progressReporter(extra: LegacyExtra) {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  return (progress: number, total: number) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total } });
}

/** Server-to-client requests ride the tool call's own stream (`relatedRequestId` is set by `extra`). */
async function ask(question: string, extra: LegacyExtra): Promise<CatalogToolResult> {
  const answer = await extra.sendRequest({ method: 'elicitation/create', params: askElicitation(question) }, ElicitResultSchema);
  return askResult(answer.action, answer.content);
}

async function sample(prompt: string, extra: LegacyExtra): Promise<CatalogToolResult> {
  const answer = await extra.sendRequest({ method: 'sampling/createMessage', params: samplingRequest(prompt) }, CreateMessageResultSchema);
  return samplingResult(answer.content);
}

async function listRoots(extra: LegacyExtra): Promise<CatalogToolResult> {
  const answer = await extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema);
  return rootsResult(answer.roots);
}

function registerAddedTool(server: McpServer, state: CatalogState, name: string): RegisteredTool {
  return server.registerTool(name, { description: state.description(name) }, () => addedToolResult(name));
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

function registerGreetPrompt(server: McpServer): void {
  server.registerPrompt(
    GREET_PROMPT.name,
    { description: GREET_PROMPT.description, argsSchema: { name: completable(z.string(), (value) => completeGreetName(value)) } },
    ({ name }) => ({ messages: greetMessages(name) }),
  );
}
