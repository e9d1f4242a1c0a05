import { Injectable, Logger } from '@nestjs/common';
import { resourceStore } from '@mcp-platform/protocol-contracts';
import { isRpcError, MessageBus, RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import { invalidParamsError, jsonRpcError, JsonRpcErrorCode } from '@mcp-platform/protocol-mcp';
import { assembleChunkedContent } from './chunked-read';
import { failure, result, type MethodOutcome } from './method-outcome';
import { nextCursorOf, platformFailureToJsonRpc, readCursor, withCachingHints } from './method-support';
import type { ToolMethodContext } from './tool-methods.service';

/** What the era front ends hand to the resource, prompt and completion methods. */
export type ResourceMethodContext = Pick<ToolMethodContext, 'era' | 'virtualServer' | 'principal' | 'requestId' | 'params'>;

/** The methods served by the resource store, by MCP method name. */
export const RESOURCE_STORE_METHODS = [
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
] as const;
export type ResourceStoreMethod = (typeof RESOURCE_STORE_METHODS)[number];

/**
 * Chunked reads of one `resources/read`: a content rewritten while it is read in chunks is read again
 * from the start, once; a second change in a row is an internal error, never a mix of two versions.
 */
const CHUNKED_READ_ATTEMPTS = 2;

/** Whether `method` is one the resource store serves. */
export function isResourceStoreMethod(method: string): method is ResourceStoreMethod {
  return (RESOURCE_STORE_METHODS as readonly string[]).includes(method);
}

/**
 * `resources/*` (without subscriptions), `prompts/*` and `completion/complete` for both eras, forwarded
 * to the resource store over the bus with the virtual server's address, whether it is public (for the
 * store's `cacheScope`), and the caller's principal in the headers (the store refuses another tenant's).
 * Modern results get the store's caching hints; the era front ends add `resultType` and `_meta`.
 */
@Injectable()
export class ResourceMethods {
  private readonly logger = new Logger(ResourceMethods.name);

  constructor(private readonly bus: MessageBus) {}

  /** Serves one of {@link RESOURCE_STORE_METHODS}. */
  handle(method: ResourceStoreMethod, context: ResourceMethodContext): Promise<MethodOutcome> {
    switch (method) {
      case 'resources/list':
        return this.listResources(context);
      case 'resources/templates/list':
        return this.listResourceTemplates(context);
      case 'resources/read':
        return this.readResource(context);
      case 'prompts/list':
        return this.listPrompts(context);
      case 'prompts/get':
        return this.getPrompt(context);
      case 'completion/complete':
        return this.complete(context);
    }
  }

  async listResources(context: ResourceMethodContext): Promise<MethodOutcome> {
    const cursor = readCursor(context.requestId, context.params);
    if ('failure' in cursor) return cursor.failure;
    return this.forward(context, 'resources/list', async () => {
      const page = await this.bus.request(resourceStore.listResources, { ...this.address(context), ...cursor }, this.headers(context));
      return withCachingHints(context.era, { resources: page.resources, ...nextCursorOf(page) }, page);
    });
  }

  async listResourceTemplates(context: ResourceMethodContext): Promise<MethodOutcome> {
    const cursor = readCursor(context.requestId, context.params);
    if ('failure' in cursor) return cursor.failure;
    return this.forward(context, 'resources/templates/list', async () => {
      const page = await this.bus.request(resourceStore.listResourceTemplates, { ...this.address(context), ...cursor }, this.headers(context));
      return withCachingHints(context.era, { resourceTemplates: page.resourceTemplates, ...nextCursorOf(page) }, page);
    });
  }

  async readResource(context: ResourceMethodContext): Promise<MethodOutcome> {
    const uri = context.params?.['uri'];
    if (typeof uri !== 'string' || uri.length === 0) return failure(invalidParamsError(context.requestId, 'Invalid params: uri must be a non-empty string'));
    try {
      const read = await this.readContents(context, uri);
      // spec S-214: a read is cacheable in the modern era too.
      return result(withCachingHints(context.era, { contents: read.contents }, read));
    } catch (error) {
      if (context.era === 'legacy' && isRpcError(error) && error.code === WireErrorCode.NotFound) {
        // spec S-209: the legacy era's own code, with the URI in data. (Modern: -32602 via the mapper, S-210.)
        return failure(jsonRpcError(context.requestId, JsonRpcErrorCode.ResourceNotFound, 'Resource not found', { uri }));
      }
      return failure(platformFailureToJsonRpc(this.logger, context.requestId, 'resources/read', error));
    }
  }

  async listPrompts(context: ResourceMethodContext): Promise<MethodOutcome> {
    const cursor = readCursor(context.requestId, context.params);
    if ('failure' in cursor) return cursor.failure;
    return this.forward(context, 'prompts/list', async () => {
      const page = await this.bus.request(resourceStore.listPrompts, { ...this.address(context), ...cursor }, this.headers(context));
      return withCachingHints(context.era, { prompts: page.prompts, ...nextCursorOf(page) }, page);
    });
  }

  async getPrompt(context: ResourceMethodContext): Promise<MethodOutcome> {
    const { params, requestId } = context;
    const name = params?.['name'];
    if (typeof name !== 'string' || name.length === 0) return failure(invalidParamsError(requestId, 'Invalid params: name must be a non-empty string'));
    const args = params?.['arguments'];
    // spec S-219, S-222: arguments are a string-to-string map, checked before anything runs.
    if (args !== undefined && !isStringRecord(args)) return failure(invalidParamsError(requestId, 'Invalid params: arguments must map names to strings'));
    return this.forward(context, 'prompts/get', async () => {
      const prompt = await this.bus.request(
        resourceStore.getPrompt,
        { ...this.address(context), name, ...(args === undefined ? {} : { arguments: args }) },
        this.headers(context),
      );
      return prompt as Record<string, unknown>;
    });
  }

  async complete(context: ResourceMethodContext): Promise<MethodOutcome> {
    const { params, requestId } = context;
    const ref = resourceStore.CompletionReferenceSchema.safeParse(params?.['ref']);
    if (!ref.success) return failure(invalidParamsError(requestId, 'Invalid params: ref must be a ref/prompt with a name or a ref/resource with a uri'));
    const argument = params?.['argument'] as Record<string, unknown> | undefined;
    if (typeof argument !== 'object' || argument === null || typeof argument['name'] !== 'string' || typeof argument['value'] !== 'string') {
      return failure(invalidParamsError(requestId, 'Invalid params: argument must have a string name and value'));
    }
    const contextArguments = (params?.['context'] as Record<string, unknown> | undefined)?.['arguments'];
    if (contextArguments !== undefined && !isStringRecord(contextArguments)) {
      return failure(invalidParamsError(requestId, 'Invalid params: context.arguments must map names to strings'));
    }
    return this.forward(context, 'completion/complete', async () => {
      const completion = await this.bus.request(
        resourceStore.complete,
        {
          ...this.address(context),
          ref: ref.data,
          argument: { name: argument['name'] as string, value: argument['value'] as string },
          ...(contextArguments === undefined ? {} : { context: { arguments: contextArguments } }),
        },
        this.headers(context),
      );
      return completion as Record<string, unknown>;
    });
  }

  /**
   * The store's answer to a read, with a content larger than one bus message joined from its chunks
   * (`readResourceChunk`, each naming the version the first answer gave). The JSON-RPC result is one
   * message, so this replica holds the whole content while it answers.
   */
  private async readContents(context: ResourceMethodContext, uri: string) {
    for (let attempt = 1; attempt <= CHUNKED_READ_ATTEMPTS; attempt++) {
      const read = await this.bus.request(resourceStore.readResource, { ...this.address(context), uri, acceptChunks: true }, this.headers(context));
      const chunked = read.chunked;
      if (!chunked) return read;
      const content = await assembleChunkedContent(chunked, (offset, length) =>
        this.bus.request(resourceStore.readResourceChunk, { ...this.address(context), uri, offset, length, version: chunked.version }, this.headers(context)),
      );
      if (content !== 'changed') return { contents: [content], ttlMs: read.ttlMs, cacheScope: read.cacheScope };
    }
    throw new RpcError(WireErrorCode.Internal, `resources/read: ${uri} changed while it was read in chunks, ${CHUNKED_READ_ATTEMPTS} times in a row`);
  }

  private async forward(context: ResourceMethodContext, method: ResourceStoreMethod, call: () => Promise<Record<string, unknown>>): Promise<MethodOutcome> {
    try {
      return result(await call());
    } catch (error) {
      return failure(platformFailureToJsonRpc(this.logger, context.requestId, method, error));
    }
  }

  /** The virtual server asked; `public` comes from the executor's description the broker caches. */
  private address(context: ResourceMethodContext) {
    return { tenant: context.virtualServer.tenant, server: context.virtualServer.name, public: context.virtualServer.public };
  }

  /** The principal travels in the bus headers, never the token (S-146). */
  private headers(context: ResourceMethodContext) {
    return { context: { principal: context.principal } };
  }
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((entry) => typeof entry === 'string');
}
