import { Delete, Get, Post, Put } from '@nestjs/common';
import type { AdminPrincipal } from './admin-access';
import { Actor } from './admin-auth.guard';
import { AdminController, AdminRoute, ZodBody, ZodParam } from './admin-openapi.decorators';
import {
  TenantSlugSchema,
  type UpstreamApprovalBody,
  UpstreamApprovalBodySchema,
  UpstreamApprovalListSchema,
  UpstreamItemListSchema,
  UpstreamPutResultSchema,
  type UpstreamSourceBody,
  UpstreamSourceBodySchema,
  UpstreamSourceListSchema,
  UpstreamSourceNameSchema,
  UpstreamSourceViewSchema,
} from './upstream-admin.schemas';
import { UpstreamAdminService } from './upstream-admin.service';

/** What every source answer shows, said once for the routes that answer a source. */
const SOURCE_VIEW =
  'Secrets are never shown (`{ "set": true }` in their place). `health` is the connection as the tool executor sees it (`connected`, `degraded`, `failing`, `circuit-open`, `disabled` or `unknown`, its last error with details the callers never saw, what the upstream said of itself); `items` counts its tools by status.';

/**
 * A tenant's upstream MCP servers (issue 15): remote servers (streamable HTTP of either era, or
 * HTTP+SSE) and operator-allowed stdio servers whose tools join the tenant's catalog once approved.
 * Their definitions are pinned: a new or changed tool is held until an administrator approves the
 * digest they reviewed (or the source's policy does), so an upstream cannot change a tool unseen.
 */
@AdminController({ path: 'tenants/:tenant/upstreams', tag: 'upstreams', access: 'tenant' })
export class UpstreamsHttpController {
  constructor(private readonly upstreams: UpstreamAdminService) {}

  @Get()
  @AdminRoute({
    operationId: 'listUpstreams',
    summary: "List the tenant's upstream MCP servers, by name",
    description: SOURCE_VIEW,
    response: UpstreamSourceListSchema,
    errors: [404, 503],
  })
  list(@ZodParam('tenant', TenantSlugSchema) tenant: string) {
    return this.upstreams.list(tenant);
  }

  @Get(':source')
  @AdminRoute({
    operationId: 'getUpstream',
    summary: 'Get an upstream MCP server',
    description: SOURCE_VIEW,
    response: UpstreamSourceViewSchema,
    errors: [404, 503],
  })
  get(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('source', UpstreamSourceNameSchema) source: string) {
    return this.upstreams.get(tenant, source);
  }

  @Put(':source')
  @AdminRoute({
    operationId: 'putUpstream',
    summary: 'Create or replace an upstream MCP server',
    description:
      'The path names the source (a `name` in the body is not read). 201 when it creates the source, 200 when it replaces it. The tool executor stores it, connects and reads its tools before answering (the answer shows the health this gave); a server it cannot reach is stored all the same, `failing`, and tried again at the next call or `POST …/refresh`. ' +
      'Secrets are write-only: answers show `{ "set": true }`, and a replacement that writes `{ "set": true }` keeps the stored value, so an answer can be edited and written back. ' +
      "Pinning: the upstream's tools are not in the catalog until approved. Under the `policy` `hold-all` (the default) every new or changed tool waits for `POST …/approvals`; `approve-new` approves new tools and holds changed ones; `approve-all` approves everything as observed. " +
      'A remote URL is reached through the SSRF guard; a `stdio` source names an entry of the operator allow-list (`GET …/stdio-servers`), never a command. An unusable definition is 400.',
    response: UpstreamPutResultSchema,
    createdStatus: true,
    errors: [404, 503],
  })
  put(
    @ZodParam('tenant', TenantSlugSchema) tenant: string,
    @ZodParam('source', UpstreamSourceNameSchema) source: string,
    @ZodBody(UpstreamSourceBodySchema) body: UpstreamSourceBody,
  ) {
    return this.upstreams.put(tenant, source, body);
  }

  @Delete(':source')
  @AdminRoute({
    operationId: 'deleteUpstream',
    summary: 'Delete an upstream MCP server with its tools (virtual servers stop exposing them) and close its connections',
    status: 204,
    errors: [404, 503],
  })
  delete(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('source', UpstreamSourceNameSchema) source: string) {
    return this.upstreams.delete(tenant, source);
  }

  @Post(':source/refresh')
  @AdminRoute({
    operationId: 'refreshUpstream',
    summary: "Read the upstream's tools again now",
    description:
      "As the upstream's own `list_changed` does: new and changed tools are pinned by the source's policy (held ones appear under `…/items`), tools it no longer lists become `removed`. " +
      SOURCE_VIEW,
    response: UpstreamSourceViewSchema,
    errors: [404, 503],
  })
  refresh(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('source', UpstreamSourceNameSchema) source: string) {
    return this.upstreams.refresh(tenant, source);
  }

  @Get(':source/items')
  @AdminRoute({
    operationId: 'listUpstreamItems',
    summary: "List the upstream's tools with their pins",
    description:
      "Each tool's `status`: `approved` (listed and callable as approved), `held-new` (nobody approved it yet: not listed), `held-changed` (its definition differs from the approved one: not listed, calls refused, until approved again), `removed` (the upstream no longer lists it) or `refused` (it cannot be served; `reason` says why). " +
      'It shows the observed and the approved definitions with their `sha256:` digests (of RFC 8785 canonical JSON) and, for a changed tool, `diff`: the JSON Patch (RFC 6902) from the approved definition to the observed one. Review it, then approve the `observedDigest` you reviewed.',
    response: UpstreamItemListSchema,
    errors: [404, 503],
  })
  listItems(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('source', UpstreamSourceNameSchema) source: string) {
    return this.upstreams.listItems(tenant, source);
  }

  @Post(':source/approvals')
  @AdminRoute({
    operationId: 'approveUpstreamItems',
    summary: 'Approve upstream tools as reviewed',
    description:
      'Each item names a tool and the digest of the definition you reviewed (its `observedDigest` under `…/items`). When one of them is no longer the observed digest (the upstream changed it during the review) nothing is approved and the answer is 409: list the items again and review the change. ' +
      'Approved tools join the catalog (virtual servers exposing them tell their clients `list_changed`); the approval is audited under your subject. The answer: the named tools with their pins as they now stand.',
    response: UpstreamItemListSchema,
    errors: [404, 409, 503],
  })
  approve(
    @ZodParam('tenant', TenantSlugSchema) tenant: string,
    @ZodParam('source', UpstreamSourceNameSchema) source: string,
    @ZodBody(UpstreamApprovalBodySchema) body: UpstreamApprovalBody,
    @Actor() actor: AdminPrincipal,
  ) {
    return this.upstreams.approve(tenant, source, body, actor);
  }

  @Get(':source/approvals')
  @AdminRoute({
    operationId: 'listUpstreamApprovals',
    summary: "The audit of the source's approvals, newest first",
    description: "Who approved which digest of which tool, and when: an administrator's subject, or `policy:<policy>` for an automatic approval.",
    response: UpstreamApprovalListSchema,
    errors: [404, 503],
  })
  listApprovals(@ZodParam('tenant', TenantSlugSchema) tenant: string, @ZodParam('source', UpstreamSourceNameSchema) source: string) {
    return this.upstreams.listApprovals(tenant, source);
  }
}
