import 'reflect-metadata';
import { createPrivateKey, type KeyObject, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { Controller, Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resourceStore, type RpcRequestParsed, taskScheduler, toolExecutor, WireErrorCode } from '@mcp-platform/protocol-contracts';
import { RpcError, RpcHandler } from '@mcp-platform/shared-messaging';
import {
  bootService,
  createThrowawayDatabase,
  isolatedNatsMessaging,
  mintAccessToken,
  testInfrastructure,
  type ThrowawayDatabase,
  uniqueRunId,
} from '@mcp-platform/shared-testing';
import { AuthorizationServerModule, configureAdminOpenApi, SigningKeysService } from '../src';
import { TenantsService } from '../src/identity/tenants/tenants.service';
import { UsersService } from '../src/identity/users/users.service';

const PUBLIC_URL = 'http://127.0.0.1:3101';
const MCP_PUBLIC_URL = 'http://127.0.0.1:3000';
const ISSUER = `${PUBLIC_URL}/oauth`;
const ADMIN_AUDIENCE = `${PUBLIC_URL}/admin/v1`;
const ADMIN_USERNAME = 'root-admin';

type ServerDefinition = toolExecutor.VirtualServerDefinitionRecord;
type ToolDefinition = toolExecutor.ToolDefinitionRecord;

/** What the fake tool executor was asked, and the catalog it keeps in memory. */
class CatalogLog {
  readonly requests: Array<{ subject: string; payload: unknown }> = [];
  readonly tenants = new Set<string>();
  readonly servers = new Map<string, ServerDefinition>();
  readonly tools = new Map<string, ToolDefinition>();

  record(subject: string, payload: unknown): void {
    this.requests.push({ subject, payload });
  }

  requireTenant(tenant: string): void {
    if (!this.tenants.has(tenant)) throw new RpcError(WireErrorCode.NotFound, `no tenant ${tenant}`);
  }
}

/** What the executor answers for a stored tool: header values never leave it, each header shows as set. */
function viewOf(tool: ToolDefinition): toolExecutor.ToolDefinitionView {
  if (tool.kind !== 'http' || tool.config.headers === undefined) return tool as toolExecutor.ToolDefinitionView;
  return { ...tool, config: { ...tool.config, headers: Object.fromEntries(Object.keys(tool.config.headers).map((name) => [name, { set: true as const }])) } };
}

/** A stand-in for the tool executor's catalog administration RPCs, over the real bus. */
function fakeCatalogExecutor(log: CatalogLog) {
  @Controller()
  class FakeCatalogExecutor {
    @RpcHandler(toolExecutor.putTenant)
    putTenant(request: RpcRequestParsed<typeof toolExecutor.putTenant>) {
      log.record(toolExecutor.putTenant.subject, request);
      const created = !log.tenants.has(request.tenant);
      log.tenants.add(request.tenant);
      return { created };
    }

    @RpcHandler(toolExecutor.deleteTenant)
    deleteTenant(request: RpcRequestParsed<typeof toolExecutor.deleteTenant>) {
      log.record(toolExecutor.deleteTenant.subject, request);
      log.requireTenant(request.tenant);
      log.tenants.delete(request.tenant);
      return { deleted: true as const };
    }

    @RpcHandler(toolExecutor.listServerDefinitions)
    listServers(request: RpcRequestParsed<typeof toolExecutor.listServerDefinitions>) {
      log.requireTenant(request.tenant);
      return { servers: [...log.servers.entries()].filter(([key]) => key.startsWith(`${request.tenant}/`)).map(([, server]) => server) };
    }

    @RpcHandler(toolExecutor.getServerDefinition)
    getServer(request: RpcRequestParsed<typeof toolExecutor.getServerDefinition>) {
      const server = log.servers.get(`${request.tenant}/${request.name}`);
      if (!server) throw new RpcError(WireErrorCode.NotFound, `no virtual server ${request.tenant}/${request.name}`);
      return server;
    }

    @RpcHandler(toolExecutor.putServerDefinition)
    putServer(request: RpcRequestParsed<typeof toolExecutor.putServerDefinition>) {
      log.record(toolExecutor.putServerDefinition.subject, request);
      log.requireTenant(request.tenant);
      const unknown = request.server.tools
        .map((entry) => (typeof entry === 'string' ? entry : entry.tool))
        .filter((name) => !log.tools.has(`${request.tenant}/${name}`));
      if (unknown.length) throw new RpcError(WireErrorCode.InvalidParams, `unknown tools: ${unknown.join(', ')}`);
      const key = `${request.tenant}/${request.server.name}`;
      const created = !log.servers.has(key);
      log.servers.set(key, request.server);
      return { created, server: request.server };
    }

    @RpcHandler(toolExecutor.deleteServerDefinition)
    deleteServer(request: RpcRequestParsed<typeof toolExecutor.deleteServerDefinition>) {
      log.record(toolExecutor.deleteServerDefinition.subject, request);
      if (!log.servers.delete(`${request.tenant}/${request.name}`)) throw new RpcError(WireErrorCode.NotFound, 'no such virtual server');
      return { deleted: true as const };
    }

    @RpcHandler(toolExecutor.listToolDefinitions)
    listTools(request: RpcRequestParsed<typeof toolExecutor.listToolDefinitions>) {
      log.requireTenant(request.tenant);
      return { tools: [...log.tools.entries()].filter(([key]) => key.startsWith(`${request.tenant}/`)).map(([, tool]) => viewOf(tool)) };
    }

    @RpcHandler(toolExecutor.getToolDefinition)
    getTool(request: RpcRequestParsed<typeof toolExecutor.getToolDefinition>) {
      const tool = log.tools.get(`${request.tenant}/${request.name}`);
      if (!tool) throw new RpcError(WireErrorCode.NotFound, `no tool ${request.tenant}/${request.name}`);
      return viewOf(tool);
    }

    @RpcHandler(toolExecutor.putToolDefinition)
    putTool(request: RpcRequestParsed<typeof toolExecutor.putToolDefinition>) {
      log.record(toolExecutor.putToolDefinition.subject, request);
      log.requireTenant(request.tenant);
      const key = `${request.tenant}/${request.tool.name}`;
      const created = !log.tools.has(key);
      log.tools.set(key, request.tool);
      return { created, tool: viewOf(request.tool) };
    }

    @RpcHandler(toolExecutor.deleteToolDefinition)
    deleteTool(request: RpcRequestParsed<typeof toolExecutor.deleteToolDefinition>) {
      log.record(toolExecutor.deleteToolDefinition.subject, request);
      if (!log.tools.delete(`${request.tenant}/${request.name}`)) throw new RpcError(WireErrorCode.NotFound, 'no such tool');
      return { deleted: true as const };
    }
  }
  return FakeCatalogExecutor;
}

/** The digest the fake executor observes for every upstream tool, and one an administrator may have reviewed earlier. */
const OBSERVED_DIGEST = `sha256:${'a'.repeat(64)}`;
const STALE_DIGEST = `sha256:${'b'.repeat(64)}`;

/** What the fake executor was asked of upstream sources, and the sources and approvals it keeps in memory (keyed `tenant/source`). */
class UpstreamLog {
  readonly requests: Array<{ subject: string; payload: unknown }> = [];
  readonly sources = new Map<string, toolExecutor.UpstreamSourceDefinitionRecord>();
  readonly approved = new Map<string, Set<string>>();
  readonly approvals = new Map<string, toolExecutor.UpstreamApproval[]>();

  constructor(private readonly catalog: CatalogLog) {}

  record(subject: string, payload: unknown): void {
    this.requests.push({ subject, payload });
  }

  source(tenant: string, source: string): toolExecutor.UpstreamSourceDefinitionRecord {
    this.catalog.requireTenant(tenant);
    return found(this.sources.get(`${tenant}/${source}`), `upstream ${tenant}/${source}`);
  }

  /** Every source lists one tool, `search`, observed at `OBSERVED_DIGEST`. */
  items(tenant: string, source: string): toolExecutor.UpstreamItemView[] {
    const definition = this.source(tenant, source);
    const approved = this.approved.get(`${tenant}/${source}`)?.has('search') ?? false;
    const observed = { name: 'search', inputSchema: { type: 'object' } };
    return [
      {
        kind: 'tool',
        name: 'search',
        exposedName: definition.prefix === null ? 'search' : `${definition.prefix ?? definition.name}__search`,
        status: approved ? 'approved' : 'held-new',
        observedDigest: OBSERVED_DIGEST,
        observed,
        ...(approved ? { approvedDigest: OBSERVED_DIGEST, approved: observed } : {}),
      },
    ];
  }

  /** A source as the executor answers it: secrets only as set. */
  view(tenant: string, definition: toolExecutor.UpstreamSourceDefinitionRecord): toolExecutor.UpstreamSourceView {
    const set = { set: true as const };
    const { connection } = definition;
    const shown: toolExecutor.UpstreamSourceView['connection'] =
      connection.transport === 'stdio'
        ? { ...connection, params: Object.fromEntries(Object.keys(connection.params).map((name) => [name, set])) }
        : connection.auth.kind === 'headers'
          ? { ...connection, auth: { kind: 'headers', headers: Object.fromEntries(Object.keys(connection.auth.headers).map((name) => [name, set])) } }
          : connection.auth.kind === 'query'
            ? { ...connection, auth: { kind: 'query', params: Object.fromEntries(Object.keys(connection.auth.params).map((name) => [name, set])) } }
            : connection.auth.kind === 'client-credentials'
              ? { ...connection, auth: { ...connection.auth, clientSecret: set } }
              : { ...connection, auth: connection.auth };
    const approved = this.items(tenant, definition.name).filter((item) => item.status === 'approved').length;
    return {
      ...definition,
      connection: shown,
      health: { state: 'connected', since: '2026-01-01T00:00:00.000Z', era: 'modern', serverInfo: { name: 'fake-upstream', version: '1.0.0' } },
      items: { approved, held: 1 - approved, removed: 0 },
    };
  }
}

/** A stand-in for the tool executor's upstream administration RPCs, over the real bus. */
function fakeUpstreamExecutor(log: UpstreamLog) {
  @Controller()
  class FakeUpstreamExecutor {
    @RpcHandler(toolExecutor.listUpstreams)
    list(request: RpcRequestParsed<typeof toolExecutor.listUpstreams>) {
      log.record(toolExecutor.listUpstreams.subject, request);
      const sources = [...log.sources.entries()].filter(([key]) => key.startsWith(`${request.tenant}/`)).map(([, source]) => source);
      return { sources: sources.map((source) => log.view(request.tenant, source)) };
    }

    @RpcHandler(toolExecutor.getUpstream)
    get(request: RpcRequestParsed<typeof toolExecutor.getUpstream>) {
      log.record(toolExecutor.getUpstream.subject, request);
      return log.view(request.tenant, log.source(request.tenant, request.source));
    }

    @RpcHandler(toolExecutor.putUpstream)
    put(request: RpcRequestParsed<typeof toolExecutor.putUpstream>) {
      log.record(toolExecutor.putUpstream.subject, request);
      const key = `${request.tenant}/${request.upstream.name}`;
      const created = !log.sources.has(key);
      log.sources.set(key, request.upstream);
      return { created, upstream: log.view(request.tenant, request.upstream) };
    }

    @RpcHandler(toolExecutor.deleteUpstream)
    delete(request: RpcRequestParsed<typeof toolExecutor.deleteUpstream>) {
      log.record(toolExecutor.deleteUpstream.subject, request);
      log.source(request.tenant, request.source);
      log.sources.delete(`${request.tenant}/${request.source}`);
      return { deleted: true as const };
    }

    @RpcHandler(toolExecutor.refreshUpstream)
    refresh(request: RpcRequestParsed<typeof toolExecutor.refreshUpstream>) {
      log.record(toolExecutor.refreshUpstream.subject, request);
      return log.view(request.tenant, log.source(request.tenant, request.source));
    }

    @RpcHandler(toolExecutor.listUpstreamItems)
    listItems(request: RpcRequestParsed<typeof toolExecutor.listUpstreamItems>) {
      log.record(toolExecutor.listUpstreamItems.subject, request);
      return { items: log.items(request.tenant, request.source) };
    }

    @RpcHandler(toolExecutor.approveUpstreamItems)
    approve(request: RpcRequestParsed<typeof toolExecutor.approveUpstreamItems>) {
      log.record(toolExecutor.approveUpstreamItems.subject, request);
      const items = log.items(request.tenant, request.source);
      for (const wanted of request.items) {
        const item = found(
          items.find((candidate) => candidate.name === wanted.name),
          `upstream tool ${wanted.name}`,
        );
        if (item.observedDigest !== wanted.digest) {
          throw new RpcError(WireErrorCode.InvalidParams, `${wanted.name} changed since the digest you reviewed`, { code: 'DIGEST_CHANGED' });
        }
      }
      const key = `${request.tenant}/${request.source}`;
      const approved = log.approved.get(key) ?? new Set<string>();
      const audit = log.approvals.get(key) ?? [];
      for (const { name, digest } of request.items) {
        approved.add(name);
        audit.unshift({ at: new Date().toISOString(), source: request.source, kind: 'tool', item: name, actor: request.actor, digest });
      }
      log.approved.set(key, approved);
      log.approvals.set(key, audit);
      const names = new Set(request.items.map((item) => item.name));
      return { items: log.items(request.tenant, request.source).filter((item) => names.has(item.name)) };
    }

    @RpcHandler(toolExecutor.listUpstreamApprovals)
    listApprovals(request: RpcRequestParsed<typeof toolExecutor.listUpstreamApprovals>) {
      log.record(toolExecutor.listUpstreamApprovals.subject, request);
      log.source(request.tenant, request.source);
      return { approvals: log.approvals.get(`${request.tenant}/${request.source}`) ?? [] };
    }

    @RpcHandler(toolExecutor.listStdioServers)
    listStdioServers(request: RpcRequestParsed<typeof toolExecutor.listStdioServers>) {
      log.record(toolExecutor.listStdioServers.subject, request);
      return {
        servers: [
          {
            name: 'filesystem',
            title: 'Files',
            params: { root: { description: 'The folder served', secret: false, required: true }, token: { secret: true, required: false } },
          },
        ],
      };
    }
  }
  return FakeUpstreamExecutor;
}

/** The fake resource store's quota per tenant, in bytes: small, so a refusal is cheap to reach. */
const FAKE_QUOTA_BYTES = 64;
/** The admin API's raw upload limit in this suite (`adminUploadLimitBytes`). */
const UPLOAD_LIMIT_BYTES = 1024 * 1024;
/** The fake resource store's per-resource limit for uploads: under the API's own, so the store's refusal is reachable. */
const FAKE_MAX_RESOURCE_BYTES = 700 * 1024;

/** What the fake resource store was asked, and the items it keeps in memory (keyed `tenant/key`). */
class ResourceLog {
  readonly requests: Array<{ subject: string; payload: unknown }> = [];
  readonly resources = new Map<string, resourceStore.StoredResourceRecord>();
  readonly templates = new Map<string, resourceStore.ResourceTemplateDefinition>();
  readonly prompts = new Map<string, resourceStore.PromptDefinition>();
  /** Uploads in progress, by id: what was begun and the bytes appended so far. */
  readonly uploads = new Map<string, { request: RpcRequestParsed<typeof resourceStore.beginResourceUpload>; parts: Buffer[]; received: number }>();
  /** The content of uploaded resources, by `tenant/uri` (their records keep no content). */
  readonly uploaded = new Map<string, Buffer>();

  record(subject: string, payload: unknown): void {
    this.requests.push({ subject, payload });
  }
}

function found<T>(item: T | undefined, what: string): T {
  if (item === undefined) throw new RpcError(WireErrorCode.NotFound, `${what} not found`);
  return item;
}

function parsed<T>(schema: { safeParse(input: unknown): { success: true; data: T } | { success: false; error: { issues: unknown[] } } }, input: unknown): T {
  const result = schema.safeParse(input);
  if (!result.success) throw new RpcError(WireErrorCode.InvalidParams, 'Invalid definition', { issues: result.error.issues });
  return result.data;
}

/** A stand-in for the resource store's administration RPCs (same validation and quota refusal), over the real bus. */
function fakeResourceStore(log: ResourceLog) {
  @Controller()
  class FakeResourceStore {
    @RpcHandler(resourceStore.deleteTenantContent)
    deleteTenantContent(request: RpcRequestParsed<typeof resourceStore.deleteTenantContent>) {
      log.record(resourceStore.deleteTenantContent.subject, request);
      const ofTenant = (items: Map<string, unknown>) => {
        const keys = [...items.keys()].filter((key) => key.startsWith(`${request.tenant}/`));
        for (const key of keys) items.delete(key);
        return keys.length;
      };
      return { resources: ofTenant(log.resources), resourceTemplates: ofTenant(log.templates), prompts: ofTenant(log.prompts) };
    }

    @RpcHandler(resourceStore.listResourceDefinitions)
    listResources(request: RpcRequestParsed<typeof resourceStore.listResourceDefinitions>) {
      const resources = [...log.resources.entries()]
        .filter(([key]) => key.startsWith(`${request.tenant}/`))
        .map(([, { text: _text, blob: _blob, ...summary }]) => summary);
      return { resources };
    }

    @RpcHandler(resourceStore.getResourceDefinition)
    getResource(request: RpcRequestParsed<typeof resourceStore.getResourceDefinition>) {
      return found(log.resources.get(`${request.tenant}/${request.uri}`), `resource ${request.uri}`);
    }

    @RpcHandler(resourceStore.putResourceDefinition)
    putResource(request: RpcRequestParsed<typeof resourceStore.putResourceDefinition>) {
      log.record(resourceStore.putResourceDefinition.subject, request);
      const resource = parsed(resourceStore.ResourceDefinitionSchema, request.resource);
      const size = resource.blob === undefined ? Buffer.byteLength(resource.text ?? '') : Buffer.from(resource.blob, 'base64').length;
      if (size > FAKE_QUOTA_BYTES) {
        throw new RpcError(WireErrorCode.InvalidParams, `Tenant ${request.tenant} would store ${size} bytes, over its quota of ${FAKE_QUOTA_BYTES}`, {
          quotaBytes: FAKE_QUOTA_BYTES,
          usedBytes: 0,
          requestedBytes: size,
        });
      }
      const key = `${request.tenant}/${resource.uri}`;
      const created = !log.resources.has(key);
      log.resources.set(key, { ...resource, size });
      return { created, resource: { ...resource, size } };
    }

    @RpcHandler(resourceStore.beginResourceUpload)
    beginUpload(request: RpcRequestParsed<typeof resourceStore.beginResourceUpload>) {
      log.record(resourceStore.beginResourceUpload.subject, request);
      if (request.name === undefined && !log.resources.has(`${request.tenant}/${request.uri}`)) {
        throw new RpcError(WireErrorCode.InvalidParams, 'a new resource needs a name', {
          issues: [{ path: ['name'], message: 'a new resource needs a name' }],
        });
      }
      const uploadId = randomUUID();
      log.uploads.set(uploadId, { request, parts: [], received: 0 });
      return { uploadId, maxResourceBytes: FAKE_MAX_RESOURCE_BYTES };
    }

    @RpcHandler(resourceStore.appendResourceUpload)
    appendUpload(request: RpcRequestParsed<typeof resourceStore.appendResourceUpload>) {
      log.record(resourceStore.appendResourceUpload.subject, { ...request, data: `${Buffer.from(request.data, 'base64').length} bytes` });
      const upload = found(log.uploads.get(request.uploadId), `upload ${request.uploadId}`);
      const data = Buffer.from(request.data, 'base64');
      if (upload.received + data.length > FAKE_MAX_RESOURCE_BYTES) {
        log.uploads.delete(request.uploadId);
        throw new RpcError(WireErrorCode.InvalidParams, 'over the limit per resource', {
          maxResourceBytes: FAKE_MAX_RESOURCE_BYTES,
          requestedBytes: upload.received + data.length,
        });
      }
      upload.parts.push(data);
      upload.received += data.length;
      return { receivedBytes: upload.received };
    }

    @RpcHandler(resourceStore.commitResourceUpload)
    commitUpload(request: RpcRequestParsed<typeof resourceStore.commitResourceUpload>) {
      log.record(resourceStore.commitResourceUpload.subject, request);
      const upload = found(log.uploads.get(request.uploadId), `upload ${request.uploadId}`);
      log.uploads.delete(request.uploadId);
      const { uri, name, mimeType, servers } = upload.request;
      const key = `${request.tenant}/${uri}`;
      const resource = { uri, name: name ?? found(log.resources.get(key), uri).name, mimeType, servers: servers ?? [], size: upload.received };
      const created = !log.resources.has(key);
      log.resources.set(key, resource);
      log.uploaded.set(key, Buffer.concat(upload.parts));
      return { created, resource };
    }

    @RpcHandler(resourceStore.abortResourceUpload)
    abortUpload(request: RpcRequestParsed<typeof resourceStore.abortResourceUpload>) {
      log.record(resourceStore.abortResourceUpload.subject, request);
      return { aborted: log.uploads.delete(request.uploadId) };
    }

    @RpcHandler(resourceStore.readResourceDefinitionChunk)
    readChunk(request: RpcRequestParsed<typeof resourceStore.readResourceDefinitionChunk>) {
      const key = `${request.tenant}/${request.uri}`;
      const resource = found(log.resources.get(key), `resource ${request.uri}`);
      const content = found(log.uploaded.get(key), `content of ${request.uri}`);
      const data = content.subarray(request.offset, request.offset + request.length).toString('base64');
      return { data, size: content.length, version: 1, encoding: 'blob' as const, ...(resource.mimeType ? { mimeType: resource.mimeType } : {}) };
    }

    @RpcHandler(resourceStore.deleteResourceDefinition)
    deleteResource(request: RpcRequestParsed<typeof resourceStore.deleteResourceDefinition>) {
      log.record(resourceStore.deleteResourceDefinition.subject, request);
      found(log.resources.get(`${request.tenant}/${request.uri}`), `resource ${request.uri}`);
      log.resources.delete(`${request.tenant}/${request.uri}`);
      return { deleted: true as const };
    }

    @RpcHandler(resourceStore.listResourceTemplateDefinitions)
    listTemplates(request: RpcRequestParsed<typeof resourceStore.listResourceTemplateDefinitions>) {
      return { resourceTemplates: [...log.templates.entries()].filter(([key]) => key.startsWith(`${request.tenant}/`)).map(([, template]) => template) };
    }

    @RpcHandler(resourceStore.getResourceTemplateDefinition)
    getTemplate(request: RpcRequestParsed<typeof resourceStore.getResourceTemplateDefinition>) {
      return found(log.templates.get(`${request.tenant}/${request.name}`), `resource template ${request.name}`);
    }

    @RpcHandler(resourceStore.putResourceTemplateDefinition)
    putTemplate(request: RpcRequestParsed<typeof resourceStore.putResourceTemplateDefinition>) {
      log.record(resourceStore.putResourceTemplateDefinition.subject, request);
      const template = parsed(resourceStore.ResourceTemplateDefinitionSchema, request.resourceTemplate);
      const key = `${request.tenant}/${template.name}`;
      const created = !log.templates.has(key);
      log.templates.set(key, template);
      return { created, resourceTemplate: template };
    }

    @RpcHandler(resourceStore.deleteResourceTemplateDefinition)
    deleteTemplate(request: RpcRequestParsed<typeof resourceStore.deleteResourceTemplateDefinition>) {
      log.record(resourceStore.deleteResourceTemplateDefinition.subject, request);
      found(log.templates.get(`${request.tenant}/${request.name}`), `resource template ${request.name}`);
      log.templates.delete(`${request.tenant}/${request.name}`);
      return { deleted: true as const };
    }

    @RpcHandler(resourceStore.listPromptDefinitions)
    listPrompts(request: RpcRequestParsed<typeof resourceStore.listPromptDefinitions>) {
      return { prompts: [...log.prompts.entries()].filter(([key]) => key.startsWith(`${request.tenant}/`)).map(([, prompt]) => prompt) };
    }

    @RpcHandler(resourceStore.getPromptDefinition)
    getPrompt(request: RpcRequestParsed<typeof resourceStore.getPromptDefinition>) {
      return found(log.prompts.get(`${request.tenant}/${request.name}`), `prompt ${request.name}`);
    }

    @RpcHandler(resourceStore.putPromptDefinition)
    putPrompt(request: RpcRequestParsed<typeof resourceStore.putPromptDefinition>) {
      log.record(resourceStore.putPromptDefinition.subject, request);
      const prompt = parsed(resourceStore.PromptDefinitionSchema, request.prompt);
      const key = `${request.tenant}/${prompt.name}`;
      const created = !log.prompts.has(key);
      log.prompts.set(key, prompt);
      return { created, prompt };
    }

    @RpcHandler(resourceStore.deletePromptDefinition)
    deletePrompt(request: RpcRequestParsed<typeof resourceStore.deletePromptDefinition>) {
      log.record(resourceStore.deletePromptDefinition.subject, request);
      found(log.prompts.get(`${request.tenant}/${request.name}`), `prompt ${request.name}`);
      log.prompts.delete(`${request.tenant}/${request.name}`);
      return { deleted: true as const };
    }
  }
  return FakeResourceStore;
}

/** What the fake task scheduler was asked, and the tasks it keeps in memory (by id). */
class TaskLog {
  readonly requests: Array<{ subject: string; payload: unknown }> = [];
  readonly tasks = new Map<string, { tenant: string; view: taskScheduler.AdminTaskView }>();

  record(subject: string, payload: unknown): void {
    this.requests.push({ subject, payload });
  }

  /** Stores a task of `tenant` in `status`; its view. */
  add(tenant: string, taskId: string, status: taskScheduler.TaskStatus): taskScheduler.AdminTaskView {
    const view: taskScheduler.AdminTaskView = {
      taskId,
      status,
      createdAt: new Date().toISOString(),
      lastUpdatedAt: new Date().toISOString(),
      ttlMs: 60_000,
      pollIntervalMs: 1_000,
      server: 'main',
      tool: 'long_operation',
      era: 'legacy',
      owner: { subject: 'alice', clientId: 'app', anonymous: false },
      runsStarted: 1,
      idempotent: true,
    };
    this.tasks.set(taskId, { tenant, view });
    return view;
  }
}

/** A stand-in for the task scheduler's administration RPCs (the owner's cancel rules), over the real bus. */
function fakeTaskScheduler(log: TaskLog) {
  @Controller()
  class FakeTaskScheduler {
    @RpcHandler(taskScheduler.listTenantTasks)
    listTasks(request: RpcRequestParsed<typeof taskScheduler.listTenantTasks>) {
      log.record(taskScheduler.listTenantTasks.subject, request);
      if (request.cursor !== undefined && request.cursor !== 'page-2') throw new RpcError(WireErrorCode.InvalidParams, 'Invalid cursor');
      const tasks = [...log.tasks.values()].filter(
        (task) => task.tenant === request.tenant && (request.status === undefined || task.view.status === request.status),
      );
      return { tasks: tasks.map((task) => task.view) };
    }

    @RpcHandler(taskScheduler.deleteTenantTasks)
    deleteTasks(request: RpcRequestParsed<typeof taskScheduler.deleteTenantTasks>) {
      log.record(taskScheduler.deleteTenantTasks.subject, request);
      const ids = [...log.tasks.entries()].filter(([, task]) => task.tenant === request.tenant).map(([id]) => id);
      for (const id of ids) log.tasks.delete(id);
      return { deleted: ids.length };
    }

    @RpcHandler(taskScheduler.cancelTenantTask)
    cancelTask(request: RpcRequestParsed<typeof taskScheduler.cancelTenantTask>) {
      log.record(taskScheduler.cancelTenantTask.subject, request);
      const task = log.tasks.get(request.taskId);
      if (!task || task.tenant !== request.tenant) throw new RpcError(WireErrorCode.NotFound, 'Unknown task');
      if (taskScheduler.isTerminalTaskStatus(task.view.status)) throw new RpcError(WireErrorCode.InvalidParams, `Task is already ${task.view.status}`);
      task.view = { ...task.view, status: 'cancelled', statusMessage: 'The task was cancelled by an administrator' };
      return task.view;
    }
  }
  return FakeTaskScheduler;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON answers, asserted field by field
  text: string;
}

describe('admin API (AuthorizationServerModule over NATS + PostgreSQL)', () => {
  const infrastructure = testInfrastructure();
  const run = uniqueRunId();
  const log = new CatalogLog();
  const upstreamLog = new UpstreamLog(log);
  const resourceLog = new ResourceLog();
  const taskLog = new TaskLog();
  let database: ThrowawayDatabase;
  let app: NestFastifyApplication;
  let platformAdminId: string;
  /** A token of `wile`, tenant admin of `acme` (made by the tests below). */
  let acmeAdminToken: string;

  beforeAll(async () => {
    database = await createThrowawayDatabase(infrastructure.databaseUrl, 'auth_admin');
    app = await bootService(
      isolatedNatsMessaging(`admin-api-test-${run}`, run, infrastructure),
      AuthorizationServerModule.register({
        database: { kind: 'postgres', url: database.url },
        publicUrl: PUBLIC_URL,
        mcpPublicUrl: MCP_PUBLIC_URL,
        seed: false,
        bootstrapAdmin: { username: ADMIN_USERNAME, password: 'a platform admin password' },
        adminUploadLimitBytes: UPLOAD_LIMIT_BYTES,
      }),
      {
        controllers: [fakeCatalogExecutor(log), fakeUpstreamExecutor(upstreamLog), fakeResourceStore(resourceLog), fakeTaskScheduler(taskLog)],
        configure: configureAdminOpenApi,
      },
    );
    await app.getHttpAdapter().getInstance().ready();
    const [admin] = await app.get(UsersService).list(null);
    if (admin?.username !== ADMIN_USERNAME) throw new Error('the bootstrap admin was not created');
    platformAdminId = admin.id;
  });

  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  async function call(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, options: { token?: string; body?: unknown } = {}): Promise<Answer> {
    const response = await app.inject({
      method,
      url,
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
    });
    const text = response.body;
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: response.statusCode, headers: response.headers, body, text };
  }

  /** A raw-body request (the content upload): `payload` as the body, with the headers given. */
  async function callRaw(
    method: 'GET' | 'PUT',
    url: string,
    options: { token: string; headers?: Record<string, string>; payload?: Buffer | Readable },
  ): Promise<Answer & { raw: Buffer }> {
    const response = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${options.token}`, ...options.headers },
      ...(options.payload === undefined ? {} : { payload: options.payload }),
    });
    let body: unknown;
    try {
      body = response.body ? JSON.parse(response.body) : undefined;
    } catch {
      body = undefined;
    }
    return { status: response.statusCode, headers: response.headers, body, text: response.body, raw: response.rawPayload };
  }

  /** The server's current signing key, to sign tokens as its token endpoint would. */
  async function serverSigningKey(): Promise<{ kid: string; privateKey: KeyObject }> {
    const [current] = await app.get(SigningKeysService).privateJwks();
    if (!current?.kid) throw new Error('no signing key');
    return { kid: current.kid, privateKey: createPrivateKey({ key: current, format: 'jwk' }) };
  }

  /** An admin access token signed with the server's current key, as its token endpoint would mint it. */
  async function adminToken(claims: { roles?: string[]; tenant?: string; scope?: string }, subject = platformAdminId): Promise<string> {
    // A tenant is named by its id too, as the token endpoint does.
    const tenantId = claims.tenant === undefined ? undefined : (await app.get(TenantsService).find(claims.tenant))?.id;
    return mintAccessToken(
      await serverSigningKey(),
      {
        iss: ISSUER,
        aud: ADMIN_AUDIENCE,
        sub: subject,
        scope: 'admin',
        client_id: 'admin-test',
        ...claims,
        ...(tenantId === undefined ? {} : { tenant_id: tenantId }),
      },
      { lifetimeSeconds: 300 },
    );
  }

  const platformAdmin = () => adminToken({ roles: ['platform-admin'] });

  describe('authentication and authorization', () => {
    it('answers 401 with a Bearer challenge without a token', async () => {
      const answer = await call('GET', '/admin/v1/tenants');
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toBe(`Bearer resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource/admin/v1", scope="admin"`);
      expect(answer.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    });

    it('answers 401 invalid_token for a token of another audience (an MCP server)', async () => {
      const token = mintAccessToken(
        await serverSigningKey(),
        { iss: ISSUER, aud: `${MCP_PUBLIC_URL}/demo/default/mcp`, sub: platformAdminId, scope: 'admin', roles: ['platform-admin'] },
        { lifetimeSeconds: 300 },
      );
      const answer = await call('GET', '/admin/v1/tenants', { token });
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toContain('error="invalid_token"');
    });

    it('answers 403 insufficient_scope to a platform admin token without the admin scope', async () => {
      const answer = await call('GET', '/admin/v1/tenants', { token: await adminToken({ roles: ['platform-admin'], scope: 'mcp' }) });
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('INSUFFICIENT_SCOPE');
      expect(answer.headers['www-authenticate']).toContain('error="insufficient_scope"');
    });

    it('serves the Protected Resource Metadata the challenge points at', async () => {
      const answer = await call('GET', '/.well-known/oauth-protected-resource/admin/v1');
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ resource: ADMIN_AUDIENCE, authorization_servers: [ISSUER], scopes_supported: ['admin'] });
    });
  });

  describe('tenants, roles and users', () => {
    it('lets a platform admin create tenants, which creates their catalogs', async () => {
      const token = await platformAdmin();
      const created = await call('POST', '/admin/v1/tenants', { token, body: { slug: 'acme', name: 'Acme' } });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ slug: 'acme', name: 'Acme', disabled: false, createdAt: expect.any(String) });
      expect((await call('POST', '/admin/v1/tenants', { token, body: { slug: 'globex', name: 'Globex' } })).status).toBe(201);
      expect(log.requests.filter((request) => request.subject === toolExecutor.putTenant.subject).map((request) => request.payload)).toEqual([
        { tenant: 'acme' },
        { tenant: 'globex' },
      ]);

      const listed = await call('GET', '/admin/v1/tenants', { token });
      expect(listed.body.tenants.map((tenant: { slug: string }) => tenant.slug)).toEqual(['acme', 'globex']);
    });

    it('refuses a duplicate tenant (409), a reserved slug (400) and a malformed body (400 with issues)', async () => {
      const token = await platformAdmin();
      expect((await call('POST', '/admin/v1/tenants', { token, body: { slug: 'acme', name: 'Again' } })).status).toBe(409);
      expect((await call('POST', '/admin/v1/tenants', { token, body: { slug: 'admin', name: 'Nope' } })).status).toBe(400);
      const malformed = await call('POST', '/admin/v1/tenants', { token, body: { slug: 'Bad Slug' } });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.code).toBe('INVALID_REQUEST');
      expect(malformed.body.error.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(['name', 'slug']);
    });

    it('lets a platform admin create a role and a tenant admin in a tenant', async () => {
      const token = await platformAdmin();
      const role = await call('PUT', '/admin/v1/tenants/acme/roles/auditor', { token, body: { description: 'Reads', scopes: ['mcp', 'demo'] } });
      expect(role.status).toBe(200);
      expect(role.body).toEqual({ created: true, role: { name: 'auditor', description: 'Reads', scopes: ['mcp', 'demo'], builtIn: false } });
      // A role may say what the scopes it allows let an application do (the consent page shows it), and only those.
      const described = await call('PUT', '/admin/v1/tenants/acme/roles/hasher', {
        token,
        body: { scopes: ['demo'], scopeDescriptions: { 'demo:crypto': 'Hash text.' } },
      });
      expect(described.body).toEqual({
        created: true,
        role: { name: 'hasher', scopes: ['demo'], scopeDescriptions: { 'demo:crypto': 'Hash text.' }, builtIn: false },
      });
      expect(
        (await call('PUT', '/admin/v1/tenants/acme/roles/hasher', { token, body: { scopes: ['mcp'], scopeDescriptions: { 'demo:crypto': 'Hash text.' } } }))
          .status,
      ).toBe(400);

      const user = await call('POST', '/admin/v1/tenants/acme/users', {
        token,
        body: { username: 'wile', password: 'a long enough password', roles: ['tenant-admin'] },
      });
      expect(user.status).toBe(201);
      expect(user.body).toEqual({ id: expect.any(String), username: 'wile', tenant: 'acme', platformAdmin: false, roles: ['tenant-admin'], disabled: false });
      expect(user.text).not.toMatch(/password|hash|argon/i);
      acmeAdminToken = await adminToken({ roles: ['tenant-admin'], tenant: 'acme' }, user.body.id);
    });

    it("lets a tenant admin manage its tenant's users", async () => {
      const created = await call('POST', '/admin/v1/tenants/acme/users', {
        token: acmeAdminToken,
        body: { username: 'road', password: 'another long password', roles: ['auditor'] },
      });
      expect(created.status).toBe(201);
      const id: string = created.body.id;

      const listed = await call('GET', '/admin/v1/tenants/acme/users', { token: acmeAdminToken });
      expect(listed.status).toBe(200);
      expect(listed.body.users.map((user: { username: string }) => user.username).sort()).toEqual(['road', 'wile']);

      const updated = await call('PATCH', `/admin/v1/tenants/acme/users/${id}`, { token: acmeAdminToken, body: { roles: ['member'], disabled: true } });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ id, roles: ['member'], disabled: true });

      expect((await call('DELETE', `/admin/v1/tenants/acme/users/${id}`, { token: acmeAdminToken })).status).toBe(204);
      expect((await call('GET', `/admin/v1/tenants/acme/users/${id}`, { token: acmeAdminToken })).status).toBe(404);
    });

    it('never lets a tenant admin mint a platform admin', async () => {
      const created = await call('POST', '/admin/v1/tenants/acme/users', {
        token: acmeAdminToken,
        body: { username: 'sneaky', password: 'a long enough password', platformAdmin: true },
      });
      expect(created.status).toBe(201);
      expect(created.body.platformAdmin).toBe(false);
    });

    it('never lets a tenant admin change or delete a platform admin who belongs to its tenant', async () => {
      const boss = await app.get(UsersService).create('acme', { username: 'boss', password: 'a platform admin password', platformAdmin: true });
      const patch = await call('PATCH', `/admin/v1/tenants/acme/users/${boss.id}`, {
        token: acmeAdminToken,
        body: { password: 'taken over by a tenant admin' },
      });
      expect(patch.status).toBe(403);
      expect((await call('DELETE', `/admin/v1/tenants/acme/users/${boss.id}`, { token: acmeAdminToken })).status).toBe(403);
      expect(await app.get(UsersService).verifyPassword('boss', 'a platform admin password')).toMatchObject({ id: boss.id });
      expect((await call('DELETE', `/admin/v1/tenants/acme/users/${boss.id}`, { token: await platformAdmin() })).status).toBe(204);
    });

    it('answers 403 to a tenant admin on another tenant and on the tenants collection', async () => {
      for (const [method, url] of [
        ['GET', '/admin/v1/tenants/globex/users'],
        ['GET', '/admin/v1/tenants/globex/roles'],
        ['GET', '/admin/v1/tenants/globex/clients'],
        ['GET', '/admin/v1/tenants/globex/virtual-servers'],
        ['PUT', '/admin/v1/tenants/globex/tools/echo'],
        ['GET', '/admin/v1/tenants/globex/resources'],
        ['PUT', '/admin/v1/tenants/globex/resources/by-uri?uri=globex%3A%2F%2Fx'],
        ['DELETE', '/admin/v1/tenants/globex/resource-templates/notes'],
        ['GET', '/admin/v1/tenants/globex/prompts/greet'],
        ['GET', '/admin/v1/tenants/globex/tasks'],
        ['POST', '/admin/v1/tenants/globex/tasks/AAAAAAAAAAAAAAAAAAAAAA/cancel'],
        ['GET', '/admin/v1/tenants'],
        ['GET', '/admin/v1/tenants/acme'],
        ['DELETE', '/admin/v1/tenants/acme'],
      ] as const) {
        const answer = await call(method, url, { token: acmeAdminToken, ...(method === 'PUT' ? { body: {} } : {}) });
        expect({ method, url, status: answer.status, code: answer.body?.error?.code }).toEqual({ method, url, status: 403, code: 'FORBIDDEN' });
      }
    });

    it("stops a disabled administrator's token at once", async () => {
      const token = await platformAdmin();
      const coyote = await call('POST', '/admin/v1/tenants/acme/users', {
        token,
        body: { username: 'coyote', password: 'a long enough password', roles: ['tenant-admin'] },
      });
      const coyoteToken = await adminToken({ roles: ['tenant-admin'], tenant: 'acme' }, coyote.body.id);
      expect((await call('GET', '/admin/v1/tenants/acme/roles', { token: coyoteToken })).status).toBe(200);
      expect((await call('PATCH', `/admin/v1/tenants/acme/users/${coyote.body.id}`, { token, body: { roles: ['member'] } })).status).toBe(200);
      expect((await call('GET', '/admin/v1/tenants/acme/roles', { token: coyoteToken })).status).toBe(403);
      expect((await call('PATCH', `/admin/v1/tenants/acme/users/${coyote.body.id}`, { token, body: { disabled: true } })).status).toBe(200);
      const refused = await call('GET', '/admin/v1/tenants/acme/roles', { token: coyoteToken });
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
    });

    it('keeps the tokens of a disabled, then re-enabled, administrator or tenant refused; new ones work', async () => {
      const token = await platformAdmin();
      /** Mints after the current second: `iat` has whole seconds, and one minted in a revocation's second counts as issued before it. */
      const nextSecondToken = async (claims: Parameters<typeof adminToken>[0], subject: string) => {
        await new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() % 1_000) + 10));
        return adminToken(claims, subject);
      };
      const created = await call('POST', '/admin/v1/tenants/acme/users', {
        token,
        body: { username: 'roadrunner', password: 'a long enough password', roles: ['tenant-admin'] },
      });
      const userId = created.body.id as string;
      const old = await adminToken({ roles: ['tenant-admin'], tenant: 'acme' }, userId);
      expect((await call('GET', '/admin/v1/tenants/acme/roles', { token: old })).status).toBe(200);
      expect((await call('PATCH', `/admin/v1/tenants/acme/users/${userId}`, { token, body: { disabled: true } })).status).toBe(200);
      expect((await call('PATCH', `/admin/v1/tenants/acme/users/${userId}`, { token, body: { disabled: false } })).status).toBe(200);
      const refused = await call('GET', '/admin/v1/tenants/acme/roles', { token: old });
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
      expect(
        (await call('GET', '/admin/v1/tenants/acme/roles', { token: await nextSecondToken({ roles: ['tenant-admin'], tenant: 'acme' }, userId) })).status,
      ).toBe(200);

      expect((await call('POST', '/admin/v1/tenants', { token, body: { slug: 'initech', name: 'Initech' } })).status).toBe(201);
      const tenantAdmin = await call('POST', '/admin/v1/tenants/initech/users', {
        token,
        body: { username: 'lumbergh', password: 'a long enough password', roles: ['tenant-admin'] },
      });
      const claims = { roles: ['tenant-admin'], tenant: 'initech' };
      const before = await adminToken(claims, tenantAdmin.body.id);
      expect((await call('GET', '/admin/v1/tenants/initech/roles', { token: before })).status).toBe(200);
      expect((await call('PATCH', '/admin/v1/tenants/initech', { token, body: { disabled: true } })).status).toBe(200);
      expect((await call('PATCH', '/admin/v1/tenants/initech', { token, body: { disabled: false } })).status).toBe(200);
      expect((await call('GET', '/admin/v1/tenants/initech/roles', { token: before })).status).toBe(401);
      expect((await call('GET', '/admin/v1/tenants/initech/roles', { token: await nextSecondToken(claims, tenantAdmin.body.id) })).status).toBe(200);
    });

    it('refuses a body that is not JSON with 400', async () => {
      const answer = await app.inject({
        method: 'POST',
        url: '/admin/v1/tenants',
        headers: { authorization: `Bearer ${await platformAdmin()}`, 'content-type': 'application/json' },
        payload: '{"slug": ',
      });
      expect(answer.statusCode).toBe(400);
    });

    it('answers 404 for a user id of another tenant', async () => {
      const token = await platformAdmin();
      const [wile] = (await call('GET', '/admin/v1/tenants/acme/users', { token })).body.users;
      expect((await call('GET', `/admin/v1/tenants/globex/users/${wile.id}`, { token })).status).toBe(404);
    });
  });

  describe('OAuth clients', () => {
    it('registers a confidential client and shows its secret in that answer only', async () => {
      const created = await call('POST', '/admin/v1/tenants/acme/clients', {
        token: acmeAdminToken,
        body: { client_name: 'CI bot', grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic', scope: 'mcp' },
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        client_id: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
        tenant: 'acme',
        client_name: 'CI bot',
        redirect_uris: [],
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'client_secret_basic',
        application_type: 'web',
        scope: 'mcp',
        client_id_issued_at: expect.any(Number),
        client_secret: expect.stringMatching(/.{20,}/),
        client_secret_expires_at: 0,
      });
      const secret: string = created.body.client_secret;

      const fetched = await call('GET', `/admin/v1/tenants/acme/clients/${created.body.client_id}`, { token: acmeAdminToken });
      expect(fetched.status).toBe(200);
      expect(fetched.body.client_secret).toBeUndefined();
      const listed = await call('GET', '/admin/v1/tenants/acme/clients', { token: acmeAdminToken });
      expect(listed.body.clients.map((client: { client_id: string }) => client.client_id)).toEqual([created.body.client_id]);
      expect(fetched.text + listed.text).not.toContain(secret);

      expect((await call('DELETE', `/admin/v1/tenants/acme/clients/${created.body.client_id}`, { token: acmeAdminToken })).status).toBe(204);
      expect((await call('GET', `/admin/v1/tenants/acme/clients/${created.body.client_id}`, { token: acmeAdminToken })).status).toBe(404);
    });

    it('registers a public client without a secret, and refuses metadata that breaks the rules', async () => {
      const created = await call('POST', '/admin/v1/tenants/acme/clients', {
        token: acmeAdminToken,
        body: {
          client_name: 'Desktop',
          grant_types: ['authorization_code', 'refresh_token'],
          token_endpoint_auth_method: 'none',
          redirect_uris: ['http://127.0.0.1:8765/callback'],
          application_type: 'native',
        },
      });
      expect(created.status).toBe(201);
      expect(created.body).not.toHaveProperty('client_secret');
      const invalid = await call('POST', '/admin/v1/tenants/acme/clients', {
        token: acmeAdminToken,
        body: { client_name: 'No redirect', grant_types: ['authorization_code'], token_endpoint_auth_method: 'none' },
      });
      expect(invalid.status).toBe(400);
      expect(invalid.body.error.message).toContain('redirect');
    });

    it("does not show a client to another tenant's routes", async () => {
      const token = await platformAdmin();
      const [client] = (await call('GET', '/admin/v1/tenants/acme/clients', { token })).body.clients;
      expect((await call('GET', `/admin/v1/tenants/globex/clients/${client.client_id}`, { token })).status).toBe(404);
      expect((await call('DELETE', `/admin/v1/tenants/globex/clients/${client.client_id}`, { token })).status).toBe(404);
    });
  });

  describe('tools and virtual servers', () => {
    const echo = {
      title: 'Echo',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      kind: 'http',
      config: { url: 'http://127.0.0.1:9/echo' },
    };

    it('puts a tool through the executor, then disables and enables it', async () => {
      const token = acmeAdminToken;
      const put = await call('PUT', '/admin/v1/tenants/acme/tools/echo', { token, body: echo });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({ created: true, tool: { ...echo, name: 'echo', enabled: true, requiredScopes: [] } });
      expect(log.requests.at(-1)).toEqual({
        subject: toolExecutor.putToolDefinition.subject,
        payload: { tenant: 'acme', tool: { ...echo, name: 'echo', enabled: true, requiredScopes: [] } },
      });

      const disabled = await call('POST', '/admin/v1/tenants/acme/tools/echo/disable', { token });
      expect(disabled.status).toBe(200);
      expect(disabled.body.enabled).toBe(false);
      expect(log.tools.get('acme/echo')?.enabled).toBe(false);
      expect((await call('POST', '/admin/v1/tenants/acme/tools/echo/enable', { token })).body.enabled).toBe(true);

      const listed = await call('GET', '/admin/v1/tenants/acme/tools', { token });
      expect(listed.body.tools.map((tool: { name: string }) => tool.name)).toEqual(['echo']);
    });

    it("never answers, documents or logs an HTTP tool's header values: set, get, list, disable and enable show them as set (issue 13 item 7)", async () => {
      const token = acmeAdminToken;
      const secret = 'sk-live-0123456789abcdef';
      const logged: string[] = [];
      const spies = (['log', 'warn', 'error', 'debug', 'verbose'] as const).map((level) =>
        vi.spyOn(Logger.prototype, level).mockImplementation((...args: unknown[]) => void logged.push(JSON.stringify(args))),
      );
      try {
        const keyed = { ...echo, config: { ...echo.config, headers: { 'x-api-key': secret } } };
        const answers = [
          await call('PUT', '/admin/v1/tenants/acme/tools/keyed', { token, body: keyed }),
          await call('GET', '/admin/v1/tenants/acme/tools/keyed', { token }),
          await call('GET', '/admin/v1/tenants/acme/tools', { token }),
          await call('POST', '/admin/v1/tenants/acme/tools/keyed/disable', { token }),
          await call('POST', '/admin/v1/tenants/acme/tools/keyed/enable', { token }),
        ];
        for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(answers[0]?.body.tool.config).toEqual({ url: echo.config.url, headers: { 'x-api-key': { set: true } } });
        expect(answers[1]?.body.config).toEqual({ url: echo.config.url, headers: { 'x-api-key': { set: true } } });
        expect(JSON.stringify(answers.map((answer) => answer.body))).not.toContain(secret);
        // Disabling wrote the definition back with the header kept (`{ set: true }`), not blanked.
        expect(log.requests.filter((entry) => entry.subject === toolExecutor.putToolDefinition.subject).at(-1)?.payload).toMatchObject({
          tool: { name: 'keyed', enabled: true, config: { headers: { 'x-api-key': { set: true } } } },
        });
        expect(logged.join('\n')).not.toContain(secret);
        const document = JSON.stringify((await call('GET', '/admin/openapi.json')).body);
        expect(document).not.toContain(secret);
      } finally {
        for (const spy of spies) spy.mockRestore();
      }
    });

    it('documents the HTTP tool contract and write-only headers in the OpenAPI document', async () => {
      const document = (await call('GET', '/admin/openapi.json')).body as {
        paths: Record<string, Record<string, { requestBody?: unknown; responses?: Record<string, unknown> }>>;
      };
      const put = document.paths['/admin/v1/tenants/{tenant}/tools/{name}']?.['put'];
      const body = JSON.stringify(put?.requestBody);
      expect(body).toMatch(/POST.*arguments.*JSON/);
      expect(body).toMatch(/structuredContent/);
      expect(body).toMatch(/write-only/);
      const shown = JSON.stringify(document.paths['/admin/v1/tenants/{tenant}/tools/{name}']?.['get']?.responses?.['200']);
      expect(shown).toMatch(/"set":\{[^}]*"const":true/);
      expect(shown).toMatch(/lastError/);
    });

    it('sends a virtual server put as putServerDefinition with the path name and answers its MCP URL', async () => {
      const token = acmeAdminToken;
      const answer = await call('PUT', '/admin/v1/tenants/acme/virtual-servers/main', { token, body: { title: 'Main', tools: ['echo'], public: true } });
      expect(answer.status).toBe(200);
      expect(log.requests.at(-1)).toEqual({
        subject: toolExecutor.putServerDefinition.subject,
        payload: { tenant: 'acme', server: { name: 'main', title: 'Main', tools: ['echo'], public: true } },
      });
      expect(answer.body).toEqual({
        created: true,
        server: { name: 'main', title: 'Main', tools: ['echo'], public: true, url: `${MCP_PUBLIC_URL}/acme/main/mcp` },
      });
      const fetched = await call('GET', '/admin/v1/tenants/acme/virtual-servers/main', { token });
      expect(fetched.body).toMatchObject({ name: 'main', public: true, url: `${MCP_PUBLIC_URL}/acme/main/mcp` });
    });

    it('passes picks and sources through, and refuses a pick the contract refuses before anything is sent', async () => {
      const token = acmeAdminToken;
      const body = { tools: ['echo', { tool: 'echo', name: 'say', fixedArguments: { text: 'hi' } }], sources: [{ source: 'gh', hidden: ['gh__x'] }] };
      const answer = await call('PUT', '/admin/v1/tenants/acme/virtual-servers/composed', { token, body });
      expect(log.requests.at(-1)).toEqual({
        subject: toolExecutor.putServerDefinition.subject,
        payload: { tenant: 'acme', server: { name: 'composed', public: false, ...body } },
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const before = log.requests.length;
      for (const tools of [[{ tool: 'echo', fixed: { text: 'hi' } }], [{ tool: 'echo', name: 'bad name' }], [{ name: 'no-tool' }]]) {
        const refused = await call('PUT', '/admin/v1/tenants/acme/virtual-servers/composed', { token, body: { tools } });
        expect(refused.status, JSON.stringify(tools)).toBe(400);
        expect(refused.body.error.code).toBe('INVALID_REQUEST');
      }
      const noTool = await call('PUT', '/admin/v1/tenants/acme/virtual-servers/composed', { token, body: { tools: [{ name: 'say' }] } });
      expect(noTool.body.error.message).toContain('tools.0: not a valid pick: tool: ');
      expect(log.requests.length).toBe(before);
    });

    it("maps the executor's refusals: unknown tool 400, unknown server 404", async () => {
      const token = acmeAdminToken;
      const unknownTool = await call('PUT', '/admin/v1/tenants/acme/virtual-servers/other', { token, body: { tools: ['nope'] } });
      expect(unknownTool.status).toBe(400);
      expect(unknownTool.body).toEqual({ error: { code: 'INVALID_REQUEST', message: 'unknown tools: nope' } });
      const missing = await call('GET', '/admin/v1/tenants/acme/virtual-servers/absent', { token });
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('NOT_FOUND');
    });

    it('refuses a tool body the contract refuses, before anything is sent', async () => {
      const token = acmeAdminToken;
      const before = log.requests.length;
      const answer = await call('PUT', '/admin/v1/tenants/acme/tools/broken', {
        token,
        body: { inputSchema: { type: 'string' }, kind: 'builtin', config: {} },
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('INVALID_REQUEST');
      expect(log.requests.length).toBe(before);
    });

    it('deletes a virtual server and a tool', async () => {
      const token = acmeAdminToken;
      expect((await call('DELETE', '/admin/v1/tenants/acme/virtual-servers/main', { token })).status).toBe(204);
      expect((await call('DELETE', '/admin/v1/tenants/acme/tools/echo', { token })).status).toBe(204);
      expect((await call('DELETE', '/admin/v1/tenants/acme/tools/echo', { token })).status).toBe(404);
    });

    it('deletes a tenant with its catalog, its resources and prompts, and its tasks', async () => {
      const token = await platformAdmin();
      expect((await call('DELETE', '/admin/v1/tenants/globex', { token })).status).toBe(204);
      expect(log.requests.at(-1)).toEqual({ subject: toolExecutor.deleteTenant.subject, payload: { tenant: 'globex' } });
      expect(resourceLog.requests.at(-1)).toEqual({ subject: resourceStore.deleteTenantContent.subject, payload: { tenant: 'globex' } });
      expect(taskLog.requests.at(-1)).toEqual({ subject: taskScheduler.deleteTenantTasks.subject, payload: { tenant: 'globex' } });
      expect((await call('GET', '/admin/v1/tenants/globex', { token })).status).toBe(404);
    });
  });

  describe('upstream MCP servers', () => {
    const BASE = '/admin/v1/tenants/acme/upstreams';
    const SECRET = 'ghp-0123456789abcdef';
    const github = {
      title: 'GitHub',
      connection: {
        transport: 'streamable-http',
        url: 'https://mcp.example.test/mcp',
        auth: { kind: 'headers', headers: { authorization: `Bearer ${SECRET}` } },
      },
    };

    it('creates a source with 201 and replaces it with 200, the path naming it, and never shows its secrets', async () => {
      const token = acmeAdminToken;
      const created = await call('PUT', `${BASE}/github`, { token, body: { ...github, name: 'other' } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(upstreamLog.requests.at(-1)).toEqual({
        subject: toolExecutor.putUpstream.subject,
        payload: { tenant: 'acme', upstream: { ...github, name: 'github', policy: 'hold-all', enabled: true, servers: [] } },
      });
      expect(created.body).toMatchObject({
        created: true,
        upstream: {
          name: 'github',
          policy: 'hold-all',
          connection: { transport: 'streamable-http', auth: { kind: 'headers', headers: { authorization: { set: true } } } },
          health: { state: 'connected' },
          items: { approved: 0, held: 1, removed: 0 },
        },
      });
      expect(created.headers['cache-control']).toBe('no-store');

      // What a read shows can be written back: `{ "set": true }` keeps the stored secret.
      const { created: _created, upstream } = created.body;
      const { health: _health, items: _items, ...definition } = upstream;
      const replaced = await call('PUT', `${BASE}/github`, { token, body: { ...definition, policy: 'approve-new' } });
      expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
      expect(replaced.body).toMatchObject({ created: false, upstream: { name: 'github', policy: 'approve-new' } });
      expect(upstreamLog.requests.at(-1)?.payload).toMatchObject({
        upstream: { connection: { auth: { kind: 'headers', headers: { authorization: { set: true } } } } },
      });
      const answers = [created, replaced, await call('GET', `${BASE}/github`, { token }), await call('GET', BASE, { token })];
      expect(answers.map((answer) => answer.text).join('\n')).not.toContain(SECRET);
    });

    it('gets, lists and refreshes sources', async () => {
      const token = acmeAdminToken;
      const fetched = await call('GET', `${BASE}/github`, { token });
      expect(fetched.status).toBe(200);
      expect(fetched.body).toMatchObject({ name: 'github', title: 'GitHub', health: { state: 'connected', serverInfo: { name: 'fake-upstream' } } });
      const listed = await call('GET', BASE, { token });
      expect(listed.status).toBe(200);
      expect(listed.body.sources.map((source: { name: string }) => source.name)).toEqual(['github']);
      const refreshed = await call('POST', `${BASE}/github/refresh`, { token });
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.name).toBe('github');
      expect(upstreamLog.requests.at(-1)).toEqual({ subject: toolExecutor.refreshUpstream.subject, payload: { tenant: 'acme', source: 'github' } });
    });

    it('lists the held tools, approves the reviewed digest as the calling administrator, and shows the audit', async () => {
      const token = acmeAdminToken;
      const wile = (await call('GET', '/admin/v1/tenants/acme/users', { token })).body.users.find((user: { username: string }) => user.username === 'wile');
      const items = await call('GET', `${BASE}/github/items`, { token });
      expect(items.status).toBe(200);
      expect(items.body.items).toEqual([
        expect.objectContaining({ name: 'search', exposedName: 'github__search', status: 'held-new', observedDigest: OBSERVED_DIGEST }),
      ]);

      const approved = await call('POST', `${BASE}/github/approvals`, { token, body: { items: [{ name: 'search', digest: OBSERVED_DIGEST }] } });
      expect(approved.status, JSON.stringify(approved.body)).toBe(200);
      expect(approved.body.items).toEqual([expect.objectContaining({ name: 'search', status: 'approved', approvedDigest: OBSERVED_DIGEST })]);
      expect(upstreamLog.requests.at(-1)).toEqual({
        subject: toolExecutor.approveUpstreamItems.subject,
        payload: { tenant: 'acme', source: 'github', actor: wile.id, items: [{ kind: 'tool', name: 'search', digest: OBSERVED_DIGEST }] },
      });

      const audit = await call('GET', `${BASE}/github/approvals`, { token });
      expect(audit.status).toBe(200);
      expect(audit.body.approvals).toEqual([
        { at: expect.any(String), source: 'github', kind: 'tool', item: 'search', actor: wile.id, digest: OBSERVED_DIGEST },
      ]);
    });

    it('answers 409 CONFLICT when a reviewed digest is no longer the observed one (DIGEST_CHANGED)', async () => {
      const answer = await call('POST', `${BASE}/github/approvals`, { token: acmeAdminToken, body: { items: [{ name: 'search', digest: STALE_DIGEST }] } });
      expect(answer.status).toBe(409);
      expect(answer.body).toEqual({ error: { code: 'CONFLICT', message: 'search changed since the digest you reviewed' } });
    });

    it('refuses a definition or an approval the contract refuses, before anything is sent', async () => {
      const token = acmeAdminToken;
      const before = upstreamLog.requests.length;
      const refusals = [
        await call('PUT', `${BASE}/github`, { token, body: { ...github, policy: 'trust-me' } }),
        await call('PUT', `${BASE}/github`, { token, body: { connection: { transport: 'stdio', command: '/bin/sh' } } }),
        await call('PUT', `${BASE}/github`, { token, body: { connection: { transport: 'streamable-http', url: 'not a url' } } }),
        await call('PUT', `${BASE}/Not_A_Slug`, { token, body: github }),
        await call('POST', `${BASE}/github/approvals`, { token, body: { items: [] } }),
        await call('POST', `${BASE}/github/approvals`, { token, body: { items: [{ name: 'search', digest: 'md5:abc' }] } }),
      ];
      for (const answer of refusals) expect({ status: answer.status, code: answer.body?.error?.code }).toEqual({ status: 400, code: 'INVALID_REQUEST' });
      expect(upstreamLog.requests.length).toBe(before);
    });

    it("lists the operator's stdio servers without their commands", async () => {
      const answer = await call('GET', '/admin/v1/tenants/acme/stdio-servers', { token: acmeAdminToken });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        servers: [
          {
            name: 'filesystem',
            title: 'Files',
            params: { root: { description: 'The folder served', secret: false, required: true }, token: { secret: true, required: false } },
          },
        ],
      });
      expect(upstreamLog.requests.at(-1)).toEqual({ subject: toolExecutor.listStdioServers.subject, payload: { tenant: 'acme' } });
    });

    it("answers 403 to a tenant admin on another tenant's upstreams, and 404 for an unknown source", async () => {
      const token = acmeAdminToken;
      for (const url of ['/admin/v1/tenants/globex/upstreams', '/admin/v1/tenants/globex/stdio-servers']) {
        expect((await call('GET', url, { token })).status, url).toBe(403);
      }
      for (const [method, url] of [
        ['GET', `${BASE}/absent`],
        ['GET', `${BASE}/absent/items`],
        ['POST', `${BASE}/absent/refresh`],
      ] as const) {
        const answer = await call(method, url, { token });
        expect({ url, status: answer.status, code: answer.body?.error?.code }).toEqual({ url, status: 404, code: 'NOT_FOUND' });
      }
    });

    it('deletes a source (204), then answers 404 for it', async () => {
      const token = acmeAdminToken;
      expect((await call('DELETE', `${BASE}/github`, { token })).status).toBe(204);
      expect(upstreamLog.requests.at(-1)).toEqual({ subject: toolExecutor.deleteUpstream.subject, payload: { tenant: 'acme', source: 'github' } });
      expect((await call('DELETE', `${BASE}/github`, { token })).status).toBe(404);
    });
  });

  describe('resources, resource templates and prompts', () => {
    const GUIDE_URL = `/admin/v1/tenants/acme/resources/by-uri?uri=${encodeURIComponent('acme://docs/guide')}`;

    it('answers 401 without a token and 403 without the admin scope', async () => {
      const anonymous = await call('GET', '/admin/v1/tenants/acme/resources');
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer /);
      const noScope = await call('GET', '/admin/v1/tenants/acme/prompts', { token: await adminToken({ roles: ['platform-admin'], scope: 'mcp' }) });
      expect(noScope.status).toBe(403);
      expect(noScope.body.error.code).toBe('INSUFFICIENT_SCOPE');
    });

    it('puts a text resource by its URI, gets it, lists it and deletes it', async () => {
      const token = acmeAdminToken;
      const body = { name: 'guide', mimeType: 'text/markdown', text: '# Guide', servers: ['main'] };
      const put = await call('PUT', GUIDE_URL, { token, body });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({ created: true, resource: { ...body, uri: 'acme://docs/guide', size: 7 } });
      expect(resourceLog.requests.at(-1)).toEqual({
        subject: resourceStore.putResourceDefinition.subject,
        payload: { tenant: 'acme', resource: { ...body, uri: 'acme://docs/guide' } },
      });
      expect((await call('GET', GUIDE_URL, { token })).body).toEqual({ ...body, uri: 'acme://docs/guide', size: 7 });
      const listed = await call('GET', '/admin/v1/tenants/acme/resources', { token });
      expect(listed.body).toEqual({ resources: [{ uri: 'acme://docs/guide', name: 'guide', mimeType: 'text/markdown', servers: ['main'], size: 7 }] });
      expect((await call('DELETE', GUIDE_URL, { token })).status).toBe(204);
      expect((await call('DELETE', GUIDE_URL, { token })).status).toBe(404);
      expect((await call('GET', GUIDE_URL, { token })).body.error.code).toBe('NOT_FOUND');
    });

    it('uploads a binary resource as base64, and answers 413 over the quota', async () => {
      const token = await platformAdmin();
      const url = `/admin/v1/tenants/acme/resources/by-uri?uri=${encodeURIComponent('acme://logo.png')}`;
      const small = await call('PUT', url, { token, body: { name: 'logo', mimeType: 'image/png', blob: Buffer.from([1, 2, 3]).toString('base64') } });
      expect(small.status).toBe(200);
      expect(small.body.resource).toMatchObject({ uri: 'acme://logo.png', blob: 'AQID', size: 3 });
      const big = await call('PUT', url, { token, body: { name: 'logo', mimeType: 'image/png', blob: Buffer.alloc(FAKE_QUOTA_BYTES + 1).toString('base64') } });
      expect(big.status).toBe(413);
      expect(big.body.error).toMatchObject({ code: 'QUOTA_EXCEEDED', message: expect.stringContaining('quota') as string });
      expect((await call('DELETE', url, { token })).status).toBe(204);
    });

    it('answers a JSON body over the HTTP body limit, and one that is not JSON, with the error envelope', async () => {
      const token = await platformAdmin();
      const url = `/admin/v1/tenants/acme/resources/by-uri?uri=${encodeURIComponent('acme://huge')}`;
      const huge = await callRaw('PUT', url, { token, headers: { 'content-type': 'application/json' }, payload: Buffer.alloc(2 * 1024 * 1024, 0x20) });
      expect(huge.status).toBe(413);
      expect(huge.body).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) } });
      const garbled = await callRaw('PUT', url, { token, headers: { 'content-type': 'application/json' }, payload: Buffer.from('{"name": ') });
      expect(garbled.status).toBe(400);
      expect(garbled.body).toEqual({ error: { code: 'INVALID_REQUEST', message: expect.any(String) } });
    });

    describe('raw content uploads', () => {
      const CHUNK = resourceStore.RESOURCE_CONTENT_CHUNK_BYTES;
      const contentUrl = (uri: string, query = '') => `/admin/v1/tenants/acme/resources/by-uri/content?uri=${encodeURIComponent(uri)}${query}`;
      const since = (start: number) => resourceLog.requests.slice(start);

      it('streams the body to the store in 256 KiB chunks with its Content-Type (JSON too) as mimeType, and downloads it back', async () => {
        const token = acmeAdminToken;
        const content = Buffer.from(JSON.stringify({ values: 'x'.repeat(600 * 1024) }));
        const start = resourceLog.requests.length;
        const answer = await callRaw('PUT', contentUrl('acme://data.json', '&name=data&servers=main,%20docs'), {
          token,
          headers: { 'content-type': 'application/json' },
          payload: content,
        });
        expect(answer.status, answer.text).toBe(200);
        expect(answer.body).toEqual({
          created: true,
          resource: { uri: 'acme://data.json', name: 'data', mimeType: 'application/json', servers: ['main', 'docs'], size: content.length },
        });
        expect(since(start).map((request) => request.subject)).toEqual([
          resourceStore.beginResourceUpload.subject,
          resourceStore.appendResourceUpload.subject,
          resourceStore.appendResourceUpload.subject,
          resourceStore.appendResourceUpload.subject,
          resourceStore.commitResourceUpload.subject,
        ]);
        expect(since(start)[0]?.payload).toEqual({
          tenant: 'acme',
          uri: 'acme://data.json',
          mimeType: 'application/json',
          declaredBytes: content.length,
          name: 'data',
          servers: ['main', 'docs'],
        });
        expect(
          since(start)
            .slice(1, 4)
            .map((request) => request.payload),
        ).toEqual([
          expect.objectContaining({ offset: 0, data: `${CHUNK} bytes` }),
          expect.objectContaining({ offset: CHUNK, data: `${CHUNK} bytes` }),
          expect.objectContaining({ offset: 2 * CHUNK, data: `${content.length - 2 * CHUNK} bytes` }),
        ]);
        expect(resourceLog.uploaded.get('acme/acme://data.json')?.equals(content)).toBe(true);

        const download = await callRaw('GET', contentUrl('acme://data.json'), { token });
        expect(download.status).toBe(200);
        expect(download.headers['content-type']).toBe('application/json');
        expect(download.headers['content-length']).toBe(String(content.length));
        expect(download.headers['cache-control']).toBe('no-store');
        expect(download.raw.equals(content)).toBe(true);
      });

      it("takes the mimeType parameter over the Content-Type, application/octet-stream without either, and keeps a replaced resource's name", async () => {
        const token = acmeAdminToken;
        const start = resourceLog.requests.length;
        const bytes = Buffer.from([0, 1, 2, 3]);
        const typed = await callRaw('PUT', contentUrl('acme://img', '&name=img&mimeType=image%2Fpng'), {
          token,
          headers: { 'content-type': 'application/octet-stream' },
          payload: bytes,
        });
        expect(typed.body).toMatchObject({ created: true, resource: { mimeType: 'image/png', size: 4 } });
        const untyped = await callRaw('PUT', contentUrl('acme://img'), { token, payload: bytes });
        expect(untyped.status, untyped.text).toBe(200);
        expect(untyped.body).toMatchObject({ created: false, resource: { name: 'img', mimeType: 'application/octet-stream' } });
        // curl's default type for --data-binary says nothing about the file.
        const curlDefault = await callRaw('PUT', contentUrl('acme://img'), {
          token,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: bytes,
        });
        expect(curlDefault.body).toMatchObject({ created: false, resource: { mimeType: 'application/octet-stream' } });
        expect(
          since(start)
            .filter((request) => request.subject === resourceStore.beginResourceUpload.subject)
            .map((request) => request.payload),
        ).toEqual([
          expect.objectContaining({ mimeType: 'image/png', name: 'img' }),
          { tenant: 'acme', uri: 'acme://img', mimeType: 'application/octet-stream', declaredBytes: 4 },
          { tenant: 'acme', uri: 'acme://img', mimeType: 'application/octet-stream', declaredBytes: 4 },
        ]);
        expect((await call('DELETE', GUIDE_URL.replace(encodeURIComponent('acme://docs/guide'), encodeURIComponent('acme://img')), { token })).status).toBe(
          204,
        );
      });

      it('refuses a body over ADMIN_UPLOAD_LIMIT_BYTES with 413 PAYLOAD_TOO_LARGE: at once when its length says so, else when the bytes cross it, aborting the upload', async () => {
        const token = acmeAdminToken;
        const start = resourceLog.requests.length;
        const announced = await callRaw('PUT', contentUrl('acme://big', '&name=big'), { token, payload: Buffer.alloc(UPLOAD_LIMIT_BYTES + 1) });
        expect(announced.status).toBe(413);
        expect(announced.body).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: `the upload is over the limit of ${UPLOAD_LIMIT_BYTES} bytes` } });
        // The rest of the body is never read: the connection closes after the answer.
        expect(announced.headers['connection']).toBe('close');
        expect(since(start)).toEqual([]);

        // A body without Content-Length (a stream): the store refuses past its own limit first.
        const streamed = await callRaw('PUT', contentUrl('acme://big', '&name=big'), {
          token,
          payload: Readable.from([Buffer.alloc(500 * 1024), Buffer.alloc(500 * 1024)]),
        });
        expect(streamed.status).toBe(413);
        expect(streamed.body.error).toEqual({ code: 'PAYLOAD_TOO_LARGE', message: 'over the limit per resource' });
        expect(streamed.headers['connection']).toBe('close');
        expect(
          since(start)
            .map((request) => request.subject)
            .at(-1),
        ).toBe(resourceStore.abortResourceUpload.subject);
        expect(resourceLog.resources.has('acme/acme://big')).toBe(false);
      });

      it('refuses a new resource without a name with 400, and bad metadata before anything is sent', async () => {
        const token = acmeAdminToken;
        const unnamed = await callRaw('PUT', contentUrl('acme://nameless'), { token, payload: Buffer.from('x') });
        expect(unnamed.status).toBe(400);
        expect(unnamed.body.error).toMatchObject({ code: 'INVALID_REQUEST', message: 'a new resource needs a name' });
        const start = resourceLog.requests.length;
        const badServers = await callRaw('PUT', contentUrl('acme://x', '&name=x&servers=Not%20A%20Server'), { token, payload: Buffer.from('x') });
        expect(badServers.status).toBe(400);
        expect(badServers.body.error.issues).toEqual([expect.objectContaining({ path: 'servers.0' })]);
        expect(since(start)).toEqual([]);
      });
    });

    it('refuses a bad resource before anything is sent: no uri, a relative uri, both text and blob', async () => {
      const token = acmeAdminToken;
      const before = resourceLog.requests.length;
      for (const [url, body] of [
        ['/admin/v1/tenants/acme/resources/by-uri', { name: 'x', text: 'a' }],
        ['/admin/v1/tenants/acme/resources/by-uri?uri=relative%2Fpath', { name: 'x', text: 'a' }],
        [GUIDE_URL, { name: 'x', text: 'a', blob: 'AA==' }],
        [GUIDE_URL, { name: 'x', blob: 'not base64!' }],
      ] as const) {
        const answer = await call('PUT', url, { token, body });
        expect({ url, status: answer.status, code: answer.body?.error?.code }).toEqual({ url, status: 400, code: 'INVALID_REQUEST' });
      }
      expect(resourceLog.requests.length).toBe(before);
    });

    it('puts, gets, lists and deletes a resource template; a level-2 template is 400', async () => {
      const token = acmeAdminToken;
      const body = { uriTemplate: 'acme://notes/{topic}', text: 'About {topic}' };
      const put = await call('PUT', '/admin/v1/tenants/acme/resource-templates/notes', { token, body });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({ created: true, resourceTemplate: { ...body, name: 'notes', completions: {}, servers: [] } });
      expect((await call('GET', '/admin/v1/tenants/acme/resource-templates/notes', { token })).body).toMatchObject({
        name: 'notes',
        uriTemplate: 'acme://notes/{topic}',
      });
      expect((await call('GET', '/admin/v1/tenants/acme/resource-templates', { token })).body.resourceTemplates).toHaveLength(1);
      const bad = await call('PUT', '/admin/v1/tenants/acme/resource-templates/bad', { token, body: { uriTemplate: 'acme://{+path}', text: '' } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.issues).toEqual([expect.objectContaining({ path: 'uriTemplate' })]);
      expect((await call('DELETE', '/admin/v1/tenants/acme/resource-templates/notes', { token })).status).toBe(204);
      expect((await call('GET', '/admin/v1/tenants/acme/resource-templates/notes', { token })).status).toBe(404);
    });

    it('puts, gets, lists and deletes a prompt', async () => {
      const token = acmeAdminToken;
      const body = {
        description: 'Greets',
        arguments: [{ name: 'who', required: true }],
        messages: [{ role: 'user', content: { type: 'text', text: 'Hi {{who}}' } }],
      };
      const put = await call('PUT', '/admin/v1/tenants/acme/prompts/greet', { token, body });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({ created: true, prompt: { ...body, name: 'greet', servers: [], inputs: [] } });
      expect((await call('PUT', '/admin/v1/tenants/acme/prompts/greet', { token, body })).body.created).toBe(false);
      expect((await call('GET', '/admin/v1/tenants/acme/prompts/greet', { token })).body).toMatchObject({ name: 'greet', description: 'Greets' });
      expect((await call('GET', '/admin/v1/tenants/acme/prompts', { token })).body.prompts.map((prompt: { name: string }) => prompt.name)).toEqual(['greet']);
      expect((await call('PUT', '/admin/v1/tenants/acme/prompts/empty', { token, body: { description: 'x', messages: [] } })).status).toBe(400);
      expect((await call('DELETE', '/admin/v1/tenants/acme/prompts/greet', { token })).status).toBe(204);
      expect(resourceLog.requests.at(-1)).toEqual({ subject: resourceStore.deletePromptDefinition.subject, payload: { tenant: 'acme', name: 'greet' } });
    });
  });

  describe('tasks', () => {
    const WORKING = 'WorkingTaskOfAcme00000a';
    const DONE = 'CompletedTaskOfAcme000a';
    const GLOBEX = 'WorkingTaskOfGlobex000a';

    beforeAll(() => {
      taskLog.add('acme', WORKING, 'working');
      taskLog.add('acme', DONE, 'completed');
      taskLog.add('globex', GLOBEX, 'working');
    });

    it("lists the tenant's tasks to its admin, passing the status and the cursor on", async () => {
      const all = await call('GET', '/admin/v1/tenants/acme/tasks', { token: acmeAdminToken });
      expect(all.status).toBe(200);
      expect(all.body.tasks.map((task: { taskId: string }) => task.taskId)).toEqual([WORKING, DONE]);
      expect(all.body.tasks[0]).toMatchObject({ status: 'working', tool: 'long_operation', owner: { subject: 'alice' } });
      const filtered = await call('GET', '/admin/v1/tenants/acme/tasks?status=completed&cursor=page-2', { token: acmeAdminToken });
      expect(filtered.body.tasks.map((task: { taskId: string }) => task.taskId)).toEqual([DONE]);
      expect(taskLog.requests.filter((request) => request.subject === taskScheduler.listTenantTasks.subject).map((request) => request.payload)).toEqual([
        { tenant: 'acme' },
        { tenant: 'acme', status: 'completed', cursor: 'page-2' },
      ]);
    });

    it('refuses an unknown status or a malformed cursor before asking the scheduler, and a cursor it refuses with 400', async () => {
      const before = taskLog.requests.length;
      for (const query of ['status=running', 'cursor=not%20a%20cursor']) {
        const answer = await call('GET', `/admin/v1/tenants/acme/tasks?${query}`, { token: acmeAdminToken });
        expect({ query, status: answer.status, code: answer.body?.error?.code }).toEqual({ query, status: 400, code: 'INVALID_REQUEST' });
      }
      expect(taskLog.requests.length).toBe(before);
      const refused = await call('GET', '/admin/v1/tenants/acme/tasks?cursor=stale', { token: acmeAdminToken });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toEqual({ code: 'INVALID_REQUEST', message: 'Invalid cursor' });
    });

    it('cancels a task as its admin, naming the admin to the scheduler', async () => {
      const wile = (await call('GET', '/admin/v1/tenants/acme/users', { token: acmeAdminToken })).body.users.find(
        (user: { username: string }) => user.username === 'wile',
      );
      const cancelled = await call('POST', `/admin/v1/tenants/acme/tasks/${WORKING}/cancel`, { token: acmeAdminToken });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({ taskId: WORKING, status: 'cancelled', statusMessage: 'The task was cancelled by an administrator' });
      expect(taskLog.requests.at(-1)).toEqual({
        subject: taskScheduler.cancelTenantTask.subject,
        payload: { tenant: 'acme', taskId: WORKING, actor: { subject: wile.id } },
      });
    });

    it('answers 400 for a finished task, 404 for an unknown one or one of another tenant, 400 for a malformed id', async () => {
      const token = acmeAdminToken;
      const finished = await call('POST', `/admin/v1/tenants/acme/tasks/${DONE}/cancel`, { token });
      expect(finished.status).toBe(400);
      expect(finished.body.error).toEqual({ code: 'INVALID_REQUEST', message: 'Task is already completed' });
      expect((await call('POST', `/admin/v1/tenants/acme/tasks/${WORKING}/cancel`, { token })).body.error.message).toBe('Task is already cancelled');
      for (const taskId of ['UnknownTaskOfAcme00000a', GLOBEX]) {
        const answer = await call('POST', `/admin/v1/tenants/acme/tasks/${taskId}/cancel`, { token });
        expect({ taskId, status: answer.status, code: answer.body?.error?.code }).toEqual({ taskId, status: 404, code: 'NOT_FOUND' });
      }
      const before = taskLog.requests.length;
      expect((await call('POST', '/admin/v1/tenants/acme/tasks/short/cancel', { token })).status).toBe(400);
      expect(taskLog.requests.length).toBe(before);
      // The platform admin may cancel in any tenant.
      expect((await call('POST', `/admin/v1/tenants/globex/tasks/${GLOBEX}/cancel`, { token: await platformAdmin() })).body.status).toBe('cancelled');
    });
  });

  describe('OpenAPI document', () => {
    const EXPECTED_OPERATIONS = [
      'GET /admin/v1/tenants listTenants',
      'POST /admin/v1/tenants createTenant',
      'GET /admin/v1/tenants/{tenant} getTenant',
      'PATCH /admin/v1/tenants/{tenant} updateTenant',
      'DELETE /admin/v1/tenants/{tenant} deleteTenant',
      'GET /admin/v1/tenants/{tenant}/users listUsers',
      'POST /admin/v1/tenants/{tenant}/users createUser',
      'GET /admin/v1/tenants/{tenant}/users/{id} getUser',
      'PATCH /admin/v1/tenants/{tenant}/users/{id} updateUser',
      'DELETE /admin/v1/tenants/{tenant}/users/{id} deleteUser',
      'GET /admin/v1/tenants/{tenant}/roles listRoles',
      'GET /admin/v1/tenants/{tenant}/roles/{name} getRole',
      'PUT /admin/v1/tenants/{tenant}/roles/{name} putRole',
      'DELETE /admin/v1/tenants/{tenant}/roles/{name} deleteRole',
      'DELETE /admin/v1/tenants/{tenant}/skills/{name} deleteSkill',
      'GET /admin/v1/tenants/{tenant}/skills listSkills',
      'GET /admin/v1/tenants/{tenant}/skills/{name} getSkill',
      'PUT /admin/v1/tenants/{tenant}/skills/{name} uploadSkill',
      'PUT /admin/v1/tenants/{tenant}/skills/{name}/servers setSkillServers',
      'GET /admin/v1/tenants/{tenant}/clients listClients',
      'POST /admin/v1/tenants/{tenant}/clients createClient',
      'GET /admin/v1/tenants/{tenant}/clients/{clientId} getClient',
      'DELETE /admin/v1/tenants/{tenant}/clients/{clientId} deleteClient',
      'GET /admin/v1/tenants/{tenant}/virtual-servers listVirtualServers',
      'GET /admin/v1/tenants/{tenant}/virtual-servers/{name} getVirtualServer',
      'PUT /admin/v1/tenants/{tenant}/virtual-servers/{name} putVirtualServer',
      'DELETE /admin/v1/tenants/{tenant}/virtual-servers/{name} deleteVirtualServer',
      'GET /admin/v1/tenants/{tenant}/tools listTools',
      'GET /admin/v1/tenants/{tenant}/tools/{name} getTool',
      'PUT /admin/v1/tenants/{tenant}/tools/{name} putTool',
      'DELETE /admin/v1/tenants/{tenant}/tools/{name} deleteTool',
      'POST /admin/v1/tenants/{tenant}/tools/{name}/disable disableTool',
      'POST /admin/v1/tenants/{tenant}/tools/{name}/enable enableTool',
      'GET /admin/v1/tenants/{tenant}/upstreams listUpstreams',
      'GET /admin/v1/tenants/{tenant}/upstreams/{source} getUpstream',
      'PUT /admin/v1/tenants/{tenant}/upstreams/{source} putUpstream',
      'DELETE /admin/v1/tenants/{tenant}/upstreams/{source} deleteUpstream',
      'POST /admin/v1/tenants/{tenant}/upstreams/{source}/refresh refreshUpstream',
      'GET /admin/v1/tenants/{tenant}/upstreams/{source}/items listUpstreamItems',
      'POST /admin/v1/tenants/{tenant}/upstreams/{source}/approvals approveUpstreamItems',
      'GET /admin/v1/tenants/{tenant}/upstreams/{source}/approvals listUpstreamApprovals',
      'GET /admin/v1/tenants/{tenant}/stdio-servers listStdioServers',
      'GET /admin/v1/tenants/{tenant}/resources listResources',
      'GET /admin/v1/tenants/{tenant}/resources/by-uri getResource',
      'PUT /admin/v1/tenants/{tenant}/resources/by-uri putResource',
      'DELETE /admin/v1/tenants/{tenant}/resources/by-uri deleteResource',
      'PUT /admin/v1/tenants/{tenant}/resources/by-uri/content uploadResourceContent',
      'GET /admin/v1/tenants/{tenant}/resources/by-uri/content downloadResourceContent',
      'GET /admin/v1/tenants/{tenant}/resource-templates listResourceTemplates',
      'GET /admin/v1/tenants/{tenant}/resource-templates/{name} getResourceTemplate',
      'PUT /admin/v1/tenants/{tenant}/resource-templates/{name} putResourceTemplate',
      'DELETE /admin/v1/tenants/{tenant}/resource-templates/{name} deleteResourceTemplate',
      'GET /admin/v1/tenants/{tenant}/prompts listPrompts',
      'GET /admin/v1/tenants/{tenant}/prompts/{name} getPrompt',
      'PUT /admin/v1/tenants/{tenant}/prompts/{name} putPrompt',
      'DELETE /admin/v1/tenants/{tenant}/prompts/{name} deletePrompt',
      'GET /admin/v1/tenants/{tenant}/tasks listTasks',
      'POST /admin/v1/tenants/{tenant}/tasks/{taskId}/cancel cancelTask',
    ];

    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document, walked generically
    let document: any;

    beforeAll(async () => {
      const answer = await call('GET', '/admin/openapi.json');
      expect(answer.status).toBe(200);
      document = answer.body;
    });

    it('lists every admin route, and nothing else', () => {
      const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
        Object.entries(methods as Record<string, { operationId: string }>).map(
          ([method, operation]) => `${method.toUpperCase()} ${path} ${operation.operationId}`,
        ),
      );
      expect(operations.sort()).toEqual([...EXPECTED_OPERATIONS].sort());
    });

    it('documents the bearer and OAuth 2.0 schemes, the parameters, bodies and error answers of every route', () => {
      expect(document.openapi).toBe('3.1.0');
      expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
      // Swagger UI's Authorize: authorization code at this server's own endpoints, for the admin scope.
      expect(document.components.securitySchemes.oauth2).toMatchObject({
        type: 'oauth2',
        flows: { authorizationCode: { authorizationUrl: `${ISSUER}/auth`, tokenUrl: `${ISSUER}/token`, scopes: { admin: expect.any(String) } } },
      });
      for (const [path, methods] of Object.entries(document.paths)) {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the OpenAPI document's operations, read loosely
        for (const [method, operation] of Object.entries(methods as Record<string, any>)) {
          const where = `${method} ${path}`;
          expect(operation.security, where).toEqual([{ bearer: [] }, { oauth2: ['admin'] }]);
          for (const status of ['400', '401', '403', '500']) {
            expect(operation.responses[status]?.content?.['application/json']?.schema?.properties?.error, `${where} ${status}`).toBeDefined();
          }
          const pathParameters = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
          const documented = (operation.parameters ?? []).filter((parameter: { in: string }) => parameter.in === 'path');
          expect(documented.map((parameter: { name: string }) => parameter.name).sort(), where).toEqual(pathParameters.sort());
          for (const parameter of documented) expect(parameter.schema?.type, `${where} ${parameter.name}`).toBe('string');
          if (method === 'put' && (path.endsWith('/content') || operation.operationId === 'uploadSkill')) {
            // The raw uploads (a resource's content, a skill's archive): the body itself, of any media type.
            expect(operation.requestBody?.content?.['*/*']?.schema, `${where} body`).toEqual({ type: 'string', format: 'binary' });
          } else if (['put', 'patch'].includes(method) || (method === 'post' && !/(able|\/cancel|\/refresh)$/.test(path))) {
            expect(operation.requestBody?.content?.['application/json']?.schema, `${where} body`).toBeDefined();
          } else {
            expect(operation.requestBody, `${where} body`).toBeUndefined();
          }
        }
      }
    });

    it('documents bodies with the same schemas the routes validate with', () => {
      const server = document.paths['/admin/v1/tenants/{tenant}/virtual-servers/{name}'].put;
      const body = server.requestBody.content['application/json'].schema;
      expect(Object.keys(body.properties).sort()).toEqual(['description', 'instructions', 'public', 'sources', 'title', 'tools']);
      expect(body.properties.public).toMatchObject({ type: 'boolean', default: false });
      // Composition: a tools entry is a name or a pick; sources name upstream sources with hidden tools.
      const entry = JSON.stringify(body.properties.tools.items);
      expect(entry).toMatch(/"type":"string"/);
      for (const field of ['"tool"', '"fixedArguments"', '"defaultArguments"', 'is fixed by this server']) expect(entry).toContain(field);
      expect(JSON.stringify(body.properties.sources)).toMatch(/"hidden"/);
      const answer = server.responses['200'].content['application/json'].schema;
      expect(answer.properties.server.properties.url).toMatchObject({ type: 'string' });
      const resource = document.paths['/admin/v1/tenants/{tenant}/resources/by-uri'].put;
      expect(resource.parameters.find((parameter: { in: string }) => parameter.in === 'query')).toMatchObject({
        name: 'uri',
        required: true,
        schema: { type: 'string' },
      });
      expect(Object.keys(resource.requestBody.content['application/json'].schema.properties).sort()).toEqual([
        'annotations',
        'blob',
        'description',
        'icons',
        'mimeType',
        'name',
        'servers',
        'text',
        'title',
      ]);
      expect(resource.responses['413'].content['application/json'].schema.properties.error).toBeDefined();
      const upload = document.paths['/admin/v1/tenants/{tenant}/resources/by-uri/content'].put;
      expect(
        upload.parameters
          .filter((parameter: { in: string }) => parameter.in === 'query')
          .map((parameter: { name: string; required: boolean }) => [parameter.name, parameter.required]),
      ).toEqual([
        ['uri', true],
        ['mimeType', false],
        ['name', false],
        ['title', false],
        ['description', false],
        ['servers', false],
      ]);
      expect(upload.responses['200'].content['application/json'].schema.properties.resource.properties).not.toHaveProperty('blob');
      expect(upload.responses['413']).toBeDefined();
      expect(document.paths['/admin/v1/tenants/{tenant}/resources/by-uri/content'].get.responses['200'].content['*/*'].schema).toEqual({
        type: 'string',
        format: 'binary',
      });
      const tasks = document.paths['/admin/v1/tenants/{tenant}/tasks'].get;
      expect(tasks.parameters.filter((parameter: { in: string }) => parameter.in === 'query')).toEqual([
        expect.objectContaining({
          name: 'status',
          required: false,
          schema: expect.objectContaining({ enum: ['working', 'input_required', 'completed', 'failed', 'cancelled'] }),
        }),
        expect.objectContaining({ name: 'cursor', required: false }),
      ]);
      const task = tasks.responses['200'].content['application/json'].schema.properties.tasks.items;
      expect(Object.keys(task.properties)).toEqual(expect.arrayContaining(['taskId', 'status', 'server', 'tool', 'era', 'owner', 'runsStarted', 'idempotent']));
      expect(Object.keys(task.properties).filter((key) => ['arguments', 'outcome', 'result', 'principal', 'scopes'].includes(key))).toEqual([]);
      const cancel = document.paths['/admin/v1/tenants/{tenant}/tasks/{taskId}/cancel'].post;
      expect(Object.keys(cancel.responses).sort()).toEqual(['200', '400', '401', '403', '404', '500', '503']);
      const user = document.paths['/admin/v1/tenants/{tenant}/users'].post.requestBody.content['application/json'].schema;
      expect(user.required.sort()).toEqual(['password', 'username']);
      expect(Object.keys(user.properties)).not.toContain('platformAdmin');
    });

    it('documents the upstream routes for a tenant admin: 201 or 200 on put, write-only secrets, pinning and the policies, 409 on approval', () => {
      const put = document.paths['/admin/v1/tenants/{tenant}/upstreams/{source}'].put;
      expect(put.tags).toEqual(['upstreams']);
      expect(Object.keys(put.responses).sort()).toEqual(['200', '201', '400', '401', '403', '404', '500', '503']);
      expect(put.responses['201'].content['application/json'].schema.properties.upstream.properties.health).toBeDefined();
      const body = put.requestBody.content['application/json'].schema;
      expect(Object.keys(body.properties).sort()).toEqual(['connection', 'enabled', 'policy', 'prefix', 'servers', 'timeoutMs', 'title']);
      expect(body.required).toEqual(['connection']);
      expect(body.properties.policy).toMatchObject({ enum: ['hold-all', 'approve-new', 'approve-all'], default: 'hold-all' });
      expect(body.properties.policy.description).toMatch(/hold-all.*approve-new.*approve-all/s);
      expect(body.properties.connection.description).toMatch(/write-only/);
      expect(put.description).toMatch(/write-only/);
      expect(put.description).toMatch(/approved/);
      const approve = document.paths['/admin/v1/tenants/{tenant}/upstreams/{source}/approvals'].post;
      expect(Object.keys(approve.responses)).toContain('409');
      expect(approve.description).toMatch(/digest/);
      const approval = approve.requestBody.content['application/json'].schema.properties.items.items;
      expect(Object.keys(approval.properties).sort()).toEqual(['digest', 'kind', 'name']);
      expect(approval.properties.digest.pattern).toBe('^sha256:[0-9a-f]{64}$');
      expect(document.paths['/admin/v1/tenants/{tenant}/upstreams/{source}/items'].get.description).toMatch(/held-changed.*diff/s);
      expect(document.paths['/admin/v1/tenants/{tenant}/stdio-servers'].get.tags).toEqual(['upstreams']);
    });

    it('serves the Swagger UI', async () => {
      const answer = await call('GET', '/admin/docs');
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toContain('text/html');
      expect((await call('GET', '/admin/docs/swagger-ui-init.js')).text).toContain('/admin/v1/tenants');
      // The UI's own assets come from the installed swagger-ui-dist, not from a CDN.
      expect(answer.text).not.toMatch(/(src|href)="https?:/);
      const bundle = await app.inject({ method: 'GET', url: '/admin/docs/swagger-ui-bundle.js' });
      expect(bundle.statusCode).toBe(200);
    });
  });
});
