import { Controller } from '@nestjs/common';
import { resourceStore, type RpcRequestParsed, taskScheduler, toolExecutor, WireErrorCode } from '@mcp-platform/protocol-contracts';
import { RpcError, RpcHandler } from '@mcp-platform/shared-messaging';

/** The virtual servers the fake executor knows, with the scopes the authorization server may grant for them. */
export const FAKE_VIRTUAL_SERVERS = [
  { tenant: 'demo', name: 'default', title: 'Demo', public: false, scopes: ['mcp', 'demo:crypto'] },
  { tenant: 'conformance', name: 'everything', title: 'Everything', public: true, scopes: ['mcp'] },
  // A tenant the tests create, disable and delete themselves (the authorization server decides who gets tokens).
  { tenant: 'lifecycle', name: 'main', title: 'Lifecycle', public: false, scopes: ['mcp'] },
];

/** A stand-in for the tool executor: answers `getVirtualServer` (and the tenant mirror calls: put, delete) for the tests' tenants. */
@Controller()
export class FakeToolExecutorController {
  @RpcHandler(toolExecutor.getVirtualServer)
  getVirtualServer(request: RpcRequestParsed<typeof toolExecutor.getVirtualServer>) {
    const server = FAKE_VIRTUAL_SERVERS.find((candidate) => candidate.tenant === request.tenant && candidate.name === request.server);
    if (!server) throw new RpcError(WireErrorCode.NotFound, `no virtual server ${request.tenant}/${request.server}`);
    return server;
  }

  @RpcHandler(toolExecutor.putTenant)
  putTenant() {
    return { created: true };
  }

  @RpcHandler(toolExecutor.deleteTenant)
  deleteTenant() {
    return { deleted: true as const };
  }
}

/** A stand-in for the resource store and the task scheduler as a tenant's deletion asks them to forget it. */
@Controller()
export class FakeTenantDataController {
  @RpcHandler(resourceStore.deleteTenantContent)
  deleteTenantContent() {
    return { resources: 0, resourceTemplates: 0, prompts: 0 };
  }

  @RpcHandler(taskScheduler.deleteTenantTasks)
  deleteTenantTasks() {
    return { deleted: 0 };
  }
}
