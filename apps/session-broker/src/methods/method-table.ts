import { Injectable } from '@nestjs/common';
import {
  describeParamsProblem,
  invalidParamsError,
  MCP_METHODS,
  type McpMethodName,
  type ParamsOf,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@mcp-platform/protocol-mcp';
import type { MethodCall } from '../requests/method-call';
import { failure, type MethodOutcome, result } from '../requests/method-outcome';
import { ResourceMethods } from '../resources/resource-methods.service';
import { SessionMethods } from '../sessions/session-methods.service';
import { SkillMethods } from '../skills/skill-methods.service';
import { TaskMethods } from '../tasks/task-methods.service';
import { ToolMethods } from '../tools/tool-methods.service';
import { serverCapabilities } from './server-identity';

/** How long clients may cache `server/discover` (S-246); the catalog is not user-specific yet. */
const DISCOVER_TTL_MS = 60_000;

/**
 * The methods the era front ends serve themselves, because they open what outlives the request: a
 * session (`initialize`) or a long-lived stream (`subscriptions/listen`).
 */
export type FrontEndMethod = 'initialize' | 'subscriptions/listen';

/** Every other method of the registry. */
export type TableMethod = Exclude<McpMethodName, FrontEndMethod>;

type Handler<M extends TableMethod> = (command: ParamsOf<M>, call: MethodCall) => Promise<MethodOutcome> | MethodOutcome;

/**
 * One entry per MCP method the platform serves, one era-neutral handler each: the front end of the
 * request's era has decided the method exists in that era (its codec) and hands over the raw params;
 * the table parses them once, with the registry's schema, into the handler's typed command (-32602 with
 * the first problem otherwise), and the handler's outcome goes back to the codec to be worded.
 */
@Injectable()
export class MethodTable {
  private readonly handlers: { [M in TableMethod]: Handler<M> };

  constructor(tools: ToolMethods, resources: ResourceMethods, skills: SkillMethods, tasks: TaskMethods, sessions: SessionMethods) {
    this.handlers = {
      ping: () => sessions.ping(),
      'logging/setLevel': (command, call) => sessions.setLevel(command, call),
      'resources/subscribe': (command, call) => sessions.subscribe(command, call),
      'resources/unsubscribe': (command, call) => sessions.unsubscribe(command, call),
      'server/discover': (_command, call) => discover(call),
      'tools/list': (command, call) => tools.listTools(command, call),
      'tools/call': (command, call) => tools.callTool(command, call),
      'resources/list': (command, call) => resources.listResources(command, call),
      'resources/templates/list': (command, call) => resources.listResourceTemplates(command, call),
      'resources/read': (command, call) => resources.readResource(command, call),
      'prompts/list': (command, call) => resources.listPrompts(command, call),
      'prompts/get': (command, call) => resources.getPrompt(command, call),
      'completion/complete': (command, call) => resources.complete(command, call),
      'skills/list': (command, call) => skills.listSkills(command, call),
      'skills/get': (command, call) => skills.getSkill(command, call),
      'resources/directory/read': (command, call) => skills.readDirectory(command, call),
      'tasks/get': (command, call) => tasks.get(command, call),
      'tasks/result': (command, call) => tasks.result(command, call),
      'tasks/list': (command, call) => tasks.list(command, call),
      'tasks/cancel': (command, call) => tasks.cancel(command, call),
      'tasks/update': (command, call) => tasks.update(command, call),
    };
  }

  /** Whether the table serves `method` (the front ends serve the rest of the registry themselves). */
  serves(method: string): method is TableMethod {
    return Object.hasOwn(this.handlers, method);
  }

  /** Parses the params of `method` into its command, then runs its handler. */
  async serve<M extends TableMethod>(method: M, params: Record<string, unknown> | undefined, call: MethodCall): Promise<MethodOutcome> {
    const parsed = parseParams(method, params);
    if (!parsed.ok) return failure(invalidParamsError(undefined, parsed.message));
    return this.run(method, parsed.command, call);
  }

  /** Runs the handler of `method` on a command parsed already (multi round-trip requests read theirs first). */
  async run<M extends TableMethod>(method: M, command: ParamsOf<M>, call: MethodCall): Promise<MethodOutcome> {
    return this.handlers[method](command, call);
  }
}

/** A method's params parsed into its command (absent params as `{}`), or the `-32602` message. */
export function parseParams<M extends McpMethodName>(
  method: M,
  params: Record<string, unknown> | undefined,
): { ok: true; command: ParamsOf<M> } | { ok: false; message: string } {
  const parsed = MCP_METHODS[method].params.safeParse(params ?? {});
  return parsed.success ? { ok: true, command: parsed.data as ParamsOf<M> } : { ok: false, message: describeParamsProblem(parsed.error) };
}

/** `server/discover` (S-53): the revisions served, what this server offers, its instructions. */
function discover(call: MethodCall): MethodOutcome {
  return result(
    {
      supportedVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
      capabilities: serverCapabilities('modern'),
      ...(call.virtualServer.instructions ? { instructions: call.virtualServer.instructions } : {}),
    },
    { ttlMs: DISCOVER_TTL_MS, cacheScope: 'public' },
  );
}
