import { Injectable, Logger } from '@nestjs/common';
import { isInputRequired, resourceStore } from '@mcp-platform/protocol-contracts';
import {
  type CompleteParams,
  type GetPromptParams,
  jsonRpcError,
  JsonRpcErrorCode,
  type ListParams,
  type ReadResourceParams,
} from '@mcp-platform/protocol-mcp';
import { IdSource } from '@mcp-platform/shared-clock';
import { isRpcError, MessageBus, RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import type { MethodCall } from '../requests/method-call';
import { failure, inputRequired, type MethodOutcome, result } from '../requests/method-outcome';
import { nextCursorOf, platformFailure, principalHeaders, storeAddress } from '../requests/method-support';
import { assembleChunkedContent } from './chunked-read';

/**
 * Chunked reads of one `resources/read`: a content rewritten while it is read in chunks is read again
 * from the start, once; a second change in a row is an internal error, never a mix of two versions.
 */
const CHUNKED_READ_ATTEMPTS = 2;

/**
 * `resources/*` (without subscriptions), `prompts/*` and `completion/complete`, the same for both eras,
 * forwarded to the resource store over the bus with the virtual server's address, whether it is public
 * (for the store's `cacheScope`), and the caller's principal in the headers (the store refuses another
 * tenant's). Results carry the store's caching hints; the era's codec decides whether they go out.
 */
@Injectable()
export class ResourceMethods {
  private readonly logger = new Logger(ResourceMethods.name);

  constructor(
    private readonly bus: MessageBus,
    private readonly ids: IdSource,
  ) {}

  listResources(command: ListParams, call: MethodCall): Promise<MethodOutcome> {
    return this.forward(call, 'resources/list', async () => {
      const page = await this.bus.request(resourceStore.listResources, { ...storeAddress(call), ...cursorOf(command) }, principalHeaders(call));
      return result({ resources: page.resources, ...nextCursorOf(page) }, page);
    });
  }

  listResourceTemplates(command: ListParams, call: MethodCall): Promise<MethodOutcome> {
    return this.forward(call, 'resources/templates/list', async () => {
      const page = await this.bus.request(resourceStore.listResourceTemplates, { ...storeAddress(call), ...cursorOf(command) }, principalHeaders(call));
      return result({ resourceTemplates: page.resourceTemplates, ...nextCursorOf(page) }, page);
    });
  }

  async readResource(command: ReadResourceParams, call: MethodCall): Promise<MethodOutcome> {
    const { uri } = command;
    try {
      const read = await this.readContents(call, uri);
      // spec S-214: a read is cacheable.
      return result({ contents: read.contents }, read);
    } catch (error) {
      if (isRpcError(error) && error.code === WireErrorCode.NotFound) {
        // spec S-209: the resource-not-found code with the URI in data (the modern codec makes it -32602, S-210).
        return failure(jsonRpcError(undefined, JsonRpcErrorCode.ResourceNotFound, error.message, { uri }));
      }
      return platformFailure(this.logger, this.ids, 'resources/read', error);
    }
  }

  listPrompts(command: ListParams, call: MethodCall): Promise<MethodOutcome> {
    return this.forward(call, 'prompts/list', async () => {
      const page = await this.bus.request(resourceStore.listPrompts, { ...storeAddress(call), ...cursorOf(command) }, principalHeaders(call));
      return result({ prompts: page.prompts, ...nextCursorOf(page) }, page);
    });
  }

  /**
   * A prompt with inputs asks the user first (S-60) where the request can carry input requests: a
   * request of the stateless wire, which reaches here through its round trips with the answers so far.
   */
  getPrompt(command: GetPromptParams, call: MethodCall): Promise<MethodOutcome> {
    return this.forward(call, 'prompts/get', async () => {
      const asksByResult = call.inputResponses !== undefined;
      const prompt = await this.bus.request(
        resourceStore.getPrompt,
        {
          ...storeAddress(call),
          name: command.name,
          ...(command.arguments === undefined ? {} : { arguments: command.arguments }),
          ...(asksByResult ? { asksByResult, clientCapabilities: call.clientCapabilities, inputResponses: call.inputResponses } : {}),
          ...(call.continuation === undefined ? {} : { continuation: call.continuation }),
        },
        principalHeaders(call),
      );
      if (isInputRequired(prompt)) return inputRequired(prompt.inputRequired);
      return result(prompt as Record<string, unknown>);
    });
  }

  complete(command: CompleteParams, call: MethodCall): Promise<MethodOutcome> {
    const ref = resourceStore.CompletionReferenceSchema.safeParse(command.ref);
    if (!ref.success) {
      return Promise.resolve(
        failure(jsonRpcError(undefined, JsonRpcErrorCode.InvalidParams, 'Invalid params: ref must be a ref/prompt with a name or a ref/resource with a uri')),
      );
    }
    const contextArguments = command.context?.arguments;
    return this.forward(call, 'completion/complete', async () => {
      const completion = await this.bus.request(
        resourceStore.complete,
        {
          ...storeAddress(call),
          ref: ref.data,
          argument: { name: command.argument.name, value: command.argument.value },
          ...(contextArguments === undefined ? {} : { context: { arguments: contextArguments } }),
        },
        principalHeaders(call),
      );
      return result(completion as Record<string, unknown>);
    });
  }

  /**
   * The store's answer to a read, with a content larger than one bus message joined from its chunks
   * (`readResourceChunk`, each naming the version the first answer gave). The JSON-RPC result is one
   * message, so this replica holds the whole content while it answers.
   */
  private async readContents(call: MethodCall, uri: string) {
    for (let attempt = 1; attempt <= CHUNKED_READ_ATTEMPTS; attempt++) {
      const read = await this.bus.request(resourceStore.readResource, { ...storeAddress(call), uri, acceptChunks: true }, principalHeaders(call));
      const chunked = read.chunked;
      if (!chunked) return read;
      const content = await assembleChunkedContent(chunked, (offset, length) =>
        this.bus.request(resourceStore.readResourceChunk, { ...storeAddress(call), uri, offset, length, version: chunked.version }, principalHeaders(call)),
      );
      if (content !== 'changed') return { contents: [content], ttlMs: read.ttlMs, cacheScope: read.cacheScope };
    }
    throw new RpcError(WireErrorCode.Internal, `resources/read: ${uri} changed while it was read in chunks, ${CHUNKED_READ_ATTEMPTS} times in a row`);
  }

  private async forward(call: MethodCall, method: string, work: () => Promise<MethodOutcome>): Promise<MethodOutcome> {
    try {
      return await work();
    } catch (error) {
      return platformFailure(this.logger, this.ids, method, error);
    }
  }
}

function cursorOf(command: ListParams): { cursor?: string } {
  return command.cursor === undefined ? {} : { cursor: command.cursor };
}
