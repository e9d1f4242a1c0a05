import { Injectable } from '@nestjs/common';
import type { Principal } from '@mcp-platform/protocol-contracts';
import type { CompleteResult } from '@mcp-platform/protocol-mcp';
import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import { PromptsRepository } from '../prompts/prompts.repository';
import { ResourceTemplatesRepository } from '../resources/resource-templates.repository';
import { ResourcesRepository } from '../resources/resources.repository';
import type { ServerAddress } from '../resources/resources.service';
import { parseUriTemplate, type UriTemplate } from '../resources/uri-template';
import { assertTenantAccess } from '../store/tenant-access';
import { UpstreamCalls } from '../upstream-items/upstream-calls';
import { completeFrom, configuredCandidates, rankCompletions } from './completion-values';
import { MAX_SCANNED_URIS, storedUriNarrowing, storedVariableValues } from './stored-values';

/** What `completion/complete` names (S-226). */
export type CompletionReference = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

/**
 * completion/complete (S-225..S-230) for a prompt's argument or a template's variable, from the
 * values configured for it, narrowed by the earlier arguments; a template's variable also from the
 * URIs of the stored resources the template matches. Suggestions come only from what the caller's
 * own tenant and server hold (S-230: no leak through suggestions).
 */
@Injectable()
export class CompletionService {
  constructor(
    private readonly prompts: PromptsRepository,
    private readonly templates: ResourceTemplatesRepository,
    private readonly resources: ResourcesRepository,
    private readonly upstreams: UpstreamCalls,
  ) {}

  async complete(
    address: ServerAddress,
    ref: CompletionReference,
    argument: { name: string; value: string },
    context: Record<string, string> | undefined,
    principal: Principal | undefined,
  ): Promise<CompleteResult> {
    const caller = assertTenantAccess(principal, address.tenant);
    if (ref.type === 'ref/prompt') {
      const prompt = await this.prompts.findPrompt(address.tenant, address.server, ref.name);
      if (!prompt) throw new RpcError(WireErrorCode.InvalidParams, `Prompt ${ref.name} not found`, { name: ref.name });
      if (prompt.upstream) {
        const upstreamRef = { type: 'ref/prompt' as const, name: prompt.upstream.name };
        return this.upstreams.complete(address.tenant, prompt.upstream, upstreamRef, argument, context, caller);
      }
      const source = prompt.arguments.find((candidate) => candidate.name === argument.name)?.completionValues;
      return { completion: completeFrom(source, argument.value, context) };
    }
    const templates = await this.templates.serverTemplates(address.tenant, address.server);
    const template = templates.find((candidate) => candidate.uriTemplate === ref.uri);
    if (!template) throw new RpcError(WireErrorCode.InvalidParams, `Resource template ${ref.uri} not found`, { uri: ref.uri });
    if (template.upstream) {
      const upstreamRef = { type: 'ref/resource' as const, uri: template.uriTemplate };
      return this.upstreams.complete(address.tenant, template.upstream, upstreamRef, argument, context, caller);
    }
    const parsed = parseUriTemplate(template.uriTemplate);
    if (!parsed.variables.includes(argument.name)) return { completion: { values: [], total: 0, hasMore: false } };
    const stored = await this.storedValues(address, parsed, argument, context ?? {});
    const candidates = [...configuredCandidates(template.completions[argument.name], context), ...stored.values];
    return { completion: rankCompletions(candidates, argument.value, { exhaustive: !stored.truncated }) };
  }

  /**
   * The values the variable takes in the URIs of the server's resources that the template matches
   * (S-230: the same tenant and server as every other query). The store narrows by prefix and reads
   * at most MAX_SCANNED_URIS URIs, never content; `truncated` says there were more.
   */
  private async storedValues(
    address: ServerAddress,
    template: UriTemplate,
    argument: { name: string; value: string },
    context: Record<string, string>,
  ): Promise<{ values: string[]; truncated: boolean }> {
    const narrowing = storedUriNarrowing(template, argument.name, argument.value, context);
    const uris = await this.resources.serverResourceUris(address.tenant, address.server, narrowing, MAX_SCANNED_URIS + 1);
    const truncated = uris.length > MAX_SCANNED_URIS;
    return { values: storedVariableValues(template, argument.name, truncated ? uris.slice(0, MAX_SCANNED_URIS) : uris, context), truncated };
  }
}
