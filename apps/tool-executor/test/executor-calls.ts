import type { INestApplication } from '@nestjs/common';
import { type RpcResponse, toolExecutor } from '@mcp-platform/protocol-contracts';
import type { CallToolResult } from '@mcp-platform/protocol-mcp';
import type { MessagingOptions } from '@mcp-platform/shared-messaging';
import type { DatabaseOptions } from '@mcp-platform/shared-persistence';
import { bootService } from '@mcp-platform/shared-testing';
import { ToolExecutorModule } from '../src';
import type { UpstreamOptions } from '../src/upstreams/upstreams.constants';

/** A call's answer that must be the tool's result (a legacy call asks its client on the stream, never by result). */
export async function resultOf(answer: Promise<RpcResponse<typeof toolExecutor.callTool>>): Promise<CallToolResult> {
  const value = await answer;
  if (toolExecutor.isCallInputRequired(value) || toolExecutor.isCallRunAsTask(value))
    throw new Error(`a call answered something else than a result: ${JSON.stringify(value)}`);
  return value;
}

/**
 * The upstream options of the int specs: the fixtures on loopback are reached because 127.0.0.1 is the
 * one allowed host (`localhost`, which resolves to the same address, stays refused by the SSRF guard).
 */
export function testUpstreamOptions(stdioServers: UpstreamOptions['stdioServers'] = {}): Partial<UpstreamOptions> {
  return {
    allowPrivateNetworks: false,
    allowedHosts: ['127.0.0.1'],
    secretsKey: 'a test key for sealing upstream secrets',
    stdioServers,
    stdioPath: process.env['PATH'] ?? '/usr/bin:/bin',
    connectTimeoutMs: 5_000,
  };
}

/** The executor of the upstream int specs: seeded, HTTP tools kept off private networks, upstreams as `upstreams` says. */
export function bootUpstreamExecutor(
  messaging: MessagingOptions,
  database: DatabaseOptions,
  upstreams: Partial<UpstreamOptions> = testUpstreamOptions(),
): Promise<INestApplication> {
  return bootService(messaging, ToolExecutorModule.register({ database, seed: true, http: { allowPrivateNetworks: false }, upstreams }));
}
