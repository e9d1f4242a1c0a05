import { Controller } from '@nestjs/common';
import { type Principal, resourceStore, type RpcRequestParsed, WireErrorCode } from '@mcp-platform/protocol-contracts';
import { type CallContext, RpcError, RpcHandler } from '@mcp-platform/shared-messaging';

/** What the fake resource store saw, for assertions. */
export class ResourceStoreLog {
  /** Every request's virtual-server address and principal, in order. */
  readonly requests: Array<{ tenant: string; server: string; public: boolean; principal: Principal | undefined }> = [];
  /** Reads of `demo://rewritten` so far: each one sees the next version. */
  rewrittenReads = 0;
}

const CHUNK = resourceStore.RESOURCE_CONTENT_CHUNK_BYTES;

/** `demo://large`: more than two chunks, every byte different from its neighbours. */
export const LARGE_CONTENT = Buffer.from(Array.from({ length: 2 * CHUNK + 1000 }, (_, index) => index % 251));
/** `demo://large-text`: a text whose 3-byte characters straddle the chunk boundaries. */
export const LARGE_TEXT = `##${'€'.repeat(CHUNK / 2)}`;
/**
 * `demo://rewritten` is rewritten after every read: odd versions change before their second chunk
 * is read (a chunk read of them answers `changed`), even versions hold `REWRITTEN_CONTENT`.
 */
export const REWRITTEN_CONTENT = Buffer.alloc(CHUNK + 5, 0x42);
/** `demo://unsettled`: every chunk read answers `changed`. */
const UNSETTLED_CONTENT = Buffer.alloc(CHUNK + 5, 0x55);

const RESOURCES = [
  { uri: 'demo://guide', name: 'guide', mimeType: 'text/markdown' },
  { uri: 'demo://logo', name: 'logo', mimeType: 'image/png' },
];
const LOGO = Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64');
const PROMPTS = [{ name: 'greet', description: 'Greets someone', arguments: [{ name: 'who', required: true }] }];
const NAMES = ['alice', 'albert', 'bob'];

const hints = (request: { public: boolean }) => ({ ttlMs: 15_000, cacheScope: request.public ? ('public' as const) : ('private' as const) });

/**
 * A stand-in for the resource store serving its contracts for tenant `demo`: two resources (text and
 * blob) on two pages, the template `demo://notes/{topic}`, the prompt `greet` (argument `who`, required)
 * and completion of `who`. Another tenant's principal is `FORBIDDEN`, like the real store. Unlisted,
 * readable in chunks only: `demo://large`, `demo://large-text`, `demo://rewritten`, `demo://unsettled`.
 */
export function fakeResourceStoreController(log: ResourceStoreLog) {
  @Controller()
  class FakeResourceStoreController {
    @RpcHandler(resourceStore.listResources)
    listResources(request: RpcRequestParsed<typeof resourceStore.listResources>, context: CallContext) {
      this.admit(request, context);
      if (request.cursor === undefined) return { resources: [RESOURCES[0]!], nextCursor: 'page-2', ...hints(request) };
      if (request.cursor === 'page-2') return { resources: [RESOURCES[1]!], ...hints(request) };
      throw new RpcError(WireErrorCode.InvalidParams, 'Invalid params: unknown cursor');
    }

    @RpcHandler(resourceStore.listResourceTemplates)
    listResourceTemplates(request: RpcRequestParsed<typeof resourceStore.listResourceTemplates>, context: CallContext) {
      this.admit(request, context);
      return { resourceTemplates: [{ uriTemplate: 'demo://notes/{topic}', name: 'notes', mimeType: 'text/plain' }], ...hints(request) };
    }

    @RpcHandler(resourceStore.readResource)
    readResource(request: RpcRequestParsed<typeof resourceStore.readResource>, context: CallContext) {
      this.admit(request, context);
      if (request.uri === 'demo://guide') return { contents: [{ uri: request.uri, mimeType: 'text/markdown', text: '# Guide' }], ...hints(request) };
      if (request.uri === 'demo://logo') return { contents: [{ uri: request.uri, mimeType: 'image/png', blob: LOGO }], ...hints(request) };
      const chunked = this.chunkedContent(request.uri);
      if (chunked && request.acceptChunks) {
        const { bytes, version, encoding, mimeType } = chunked;
        const firstChunk = bytes.subarray(0, CHUNK).toString('base64');
        return { contents: [], chunked: { uri: request.uri, mimeType, encoding, size: bytes.length, version, firstChunk }, ...hints(request) };
      }
      const note = /^demo:\/\/notes\/([a-z]+)$/.exec(request.uri);
      if (note) return { contents: [{ uri: request.uri, mimeType: 'text/plain', text: `Notes on ${note[1]}` }], ...hints(request) };
      throw new RpcError(WireErrorCode.NotFound, `Resource not found: ${request.uri}`, { uri: request.uri });
    }

    @RpcHandler(resourceStore.readResourceChunk)
    readResourceChunk(request: RpcRequestParsed<typeof resourceStore.readResourceChunk>, context: CallContext) {
      this.admit(request, context);
      const stale = request.uri === 'demo://unsettled' || (request.uri === 'demo://rewritten' && request.version % 2 === 1);
      if (stale) return { changed: true as const };
      const content = this.contentAt(request.uri);
      if (!content) throw new RpcError(WireErrorCode.NotFound, `Resource not found: ${request.uri}`, { uri: request.uri });
      return { data: content.bytes.subarray(request.offset, request.offset + request.length).toString('base64') };
    }

    @RpcHandler(resourceStore.listPrompts)
    listPrompts(request: RpcRequestParsed<typeof resourceStore.listPrompts>, context: CallContext) {
      this.admit(request, context);
      return { prompts: PROMPTS, ...hints(request) };
    }

    @RpcHandler(resourceStore.getPrompt)
    getPrompt(request: RpcRequestParsed<typeof resourceStore.getPrompt>, context: CallContext) {
      this.admit(request, context);
      if (request.name !== 'greet') throw new RpcError(WireErrorCode.InvalidParams, `Invalid params: unknown prompt ${request.name}`);
      const who = request.arguments?.['who'];
      if (who === undefined) throw new RpcError(WireErrorCode.InvalidParams, 'Invalid params: missing required argument who');
      return { description: 'Greets someone', messages: [{ role: 'user' as const, content: { type: 'text' as const, text: `Say hello to ${who}.` } }] };
    }

    @RpcHandler(resourceStore.complete)
    complete(request: RpcRequestParsed<typeof resourceStore.complete>, context: CallContext) {
      this.admit(request, context);
      if (request.ref.type !== 'ref/prompt' || request.ref.name !== 'greet')
        throw new RpcError(WireErrorCode.InvalidParams, 'Invalid params: unknown reference');
      const values = NAMES.filter((name) => name.startsWith(request.argument.value));
      return { completion: { values, total: values.length, hasMore: false } };
    }

    /** The first answer to a chunked read: a further read of `demo://rewritten` sees the next version. */
    private chunkedContent(uri: string) {
      if (uri === 'demo://rewritten') log.rewrittenReads += 1;
      return this.contentAt(uri);
    }

    private contentAt(uri: string): { bytes: Buffer; version: number; encoding: 'text' | 'blob'; mimeType: string } | undefined {
      switch (uri) {
        case 'demo://large':
          return { bytes: LARGE_CONTENT, version: 1, encoding: 'blob', mimeType: 'application/octet-stream' };
        case 'demo://large-text':
          return { bytes: Buffer.from(LARGE_TEXT, 'utf8'), version: 1, encoding: 'text', mimeType: 'text/markdown' };
        case 'demo://rewritten': {
          const version = Math.max(log.rewrittenReads, 1);
          return {
            bytes: version % 2 === 1 ? Buffer.alloc(REWRITTEN_CONTENT.length, 0x41) : REWRITTEN_CONTENT,
            version,
            encoding: 'blob',
            mimeType: 'application/octet-stream',
          };
        }
        case 'demo://unsettled':
          return { bytes: UNSETTLED_CONTENT, version: 1, encoding: 'blob', mimeType: 'application/octet-stream' };
        default:
          return undefined;
      }
    }

    private admit(request: { tenant: string; server: string; public: boolean }, context: CallContext): void {
      log.requests.push({ tenant: request.tenant, server: request.server, public: request.public, principal: context.principal });
      if (context.principal?.tenant !== undefined && context.principal.tenant !== request.tenant) {
        throw new RpcError(WireErrorCode.Forbidden, 'another tenant');
      }
    }
  }
  return FakeResourceStoreController;
}
