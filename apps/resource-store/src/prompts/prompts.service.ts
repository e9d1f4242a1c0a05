import { Injectable } from '@nestjs/common';
import { type InputRequired, type Principal, resourceStore, type RpcRequestParsed } from '@mcp-platform/protocol-contracts';
import type { GetPromptResult, Prompt } from '@mcp-platform/protocol-mcp';
import { MessageBus, RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import type { ServerAddress } from '../resources/resources.service';
import { parseDefinition, type PutOutcome, sameJson, touchedServers } from '../store/definition-writes';
import { decodeListCursor, PAGE_SIZE, toPage } from '../store/list-cursor';
import { type PromptDefinition, PromptDefinitionSchema } from '../store/store.types';
import { assertTenantAccess, cacheScopeOf, LIST_TTL_MS } from '../store/tenant-access';
import { UpstreamCalls } from '../upstream-items/upstream-calls';
import { upstreamItemRefusal } from '../upstream-items/upstream-refusals';
import { promptAnswers } from './prompt-inputs';
import { assertRequiredArguments, renderPrompt } from './prompt-render';
import { PromptsRepository } from './prompts.repository';

type PromptRequest = Omit<RpcRequestParsed<typeof resourceStore.getPrompt>, 'tenant' | 'server' | 'public'>;

/** prompts/list and prompts/get for one virtual server (S-216..S-222), and the prompts' write path. */
@Injectable()
export class PromptsService {
  constructor(
    private readonly repository: PromptsRepository,
    private readonly bus: MessageBus,
    private readonly upstreams: UpstreamCalls,
  ) {}

  async listPrompts(address: ServerAddress, cursor: string | undefined, principal: Principal | undefined) {
    assertTenantAccess(principal, address.tenant);
    const after = cursor === undefined ? undefined : decodeListCursor(cursor);
    const rows = await this.repository.listPrompts(address.tenant, address.server, after, PAGE_SIZE + 1);
    const { items, nextCursor } = toPage<Prompt>(rows, (prompt) => prompt.name);
    return { prompts: items, ...(nextCursor ? { nextCursor } : {}), ttlMs: LIST_TTL_MS, cacheScope: cacheScopeOf(address.public) };
  }

  /**
   * Renders a prompt; unknown prompt or missing required argument: `INVALID_PARAMS` (S-221). A prompt
   * with inputs first asks the user what `inputResponses` does not answer yet (see {@link promptAnswers}).
   * An upstream prompt is rendered by the tool executor under the upstream's own name, once the required
   * arguments it listed are given (inputs are the store's own prompts' only).
   */
  async getPrompt(address: ServerAddress, request: PromptRequest, principal: Principal | undefined): Promise<GetPromptResult | InputRequired> {
    const caller = assertTenantAccess(principal, address.tenant);
    const prompt = await this.repository.findPrompt(address.tenant, address.server, request.name);
    if (!prompt) throw new RpcError(WireErrorCode.InvalidParams, `Prompt ${request.name} not found`, { name: request.name });
    if (prompt.upstream) {
      assertRequiredArguments(prompt, request.arguments);
      return this.upstreams.getPrompt(address.tenant, prompt.upstream, request.arguments, caller);
    }
    const answers = promptAnswers(prompt, request);
    return 'inputRequired' in answers ? answers : renderPrompt(prompt, request.arguments, answers.values);
  }

  /** Creates or replaces a prompt; an identical one is left alone. Announces `listChanged` for prompts. */
  async putPrompt(tenant: string, input: unknown): Promise<PutOutcome> {
    const prompt = parseDefinition(PromptDefinitionSchema, input);
    await this.refuseUpstreamPrompt(tenant, prompt.name);
    const existing = await this.repository.findTenantPrompt(tenant, prompt.name);
    if (existing && sameJson(existing, prompt)) return 'unchanged';
    const outcome = await this.repository.writePrompt(tenant, prompt);
    this.bus.emit(resourceStore.listChanged, { tenant, servers: touchedServers(existing?.servers, prompt.servers), lists: ['prompts'] });
    return outcome;
  }

  /** Every prompt of the tenant with its messages (the admin list). */
  async listPromptDefinitions(tenant: string) {
    return { prompts: await this.repository.tenantPrompts(tenant) };
  }

  /** One prompt of the tenant; `NOT_FOUND` `{ name }` when absent. */
  async getPromptDefinition(tenant: string, name: string): Promise<PromptDefinition> {
    const prompt = await this.repository.findTenantPrompt(tenant, name);
    if (!prompt) throw new RpcError(WireErrorCode.NotFound, `Prompt ${name} not found`, { name });
    return prompt;
  }

  /** `putPrompt` for the admin API: whether it created the prompt, and the prompt as stored. */
  async putPromptDefinition(tenant: string, input: unknown): Promise<{ created: boolean; prompt: PromptDefinition }> {
    const outcome = await this.putPrompt(tenant, input);
    const { name } = parseDefinition(PromptDefinitionSchema, input);
    return { created: outcome === 'created', prompt: await this.getPromptDefinition(tenant, name) };
  }

  /** Deletes a prompt (`NOT_FOUND` when absent); the servers that exposed it hear `listChanged`. */
  async deletePrompt(tenant: string, name: string): Promise<{ deleted: true }> {
    await this.refuseUpstreamPrompt(tenant, name);
    const servers = await this.repository.deletePrompt(tenant, name);
    if (servers === undefined) throw new RpcError(WireErrorCode.NotFound, `Prompt ${name} not found`, { name });
    this.bus.emit(resourceStore.listChanged, { tenant, servers: touchedServers(undefined, servers), lists: ['prompts'] });
    return { deleted: true };
  }

  /** Refuses an administrator's write of a name an upstream prompt holds (`data.code` `UPSTREAM_ITEM`, naming the source). */
  private async refuseUpstreamPrompt(tenant: string, name: string): Promise<void> {
    const origin = await this.repository.upstreamOrigin(tenant, name);
    if (origin) throw upstreamItemRefusal('prompt', name, origin);
  }
}
