import type { toolExecutor } from '@mcp-platform/protocol-contracts';

/** One seeded (or registered) virtual server and the URL an MCP client connects to. */
export interface VirtualServerEndpoint {
  tenant: string;
  name: string;
  title?: string;
  url: string;
}

/** The canonical MCP URL of a virtual server: `<public URL>/<tenant>/<server>/mcp`. */
export function virtualServerUrl(publicUrl: string, server: Pick<toolExecutor.VirtualServer, 'tenant' | 'name'>): string {
  return `${publicUrl.replace(/\/+$/, '')}/${encodeURIComponent(server.tenant)}/${encodeURIComponent(server.name)}/mcp`;
}

/** What a person reads once the platform is up: where to point a client, and how to stop it. */
export function readyBanner(input: { mode: string; url: string; servers: readonly VirtualServerEndpoint[]; dataDir?: string; pid: number }): string {
  const width = Math.max(0, ...input.servers.map((server) => `${server.tenant}/${server.name}`.length));
  const lines = [
    '',
    `MCP platform (${input.mode}) is ready at ${input.url}`,
    input.dataDir ? `Data directory: ${input.dataDir}` : 'Data: in memory (gone when the process stops)',
    '',
    input.servers.length ? 'Virtual servers (paste a URL into an MCP client, e.g. MCP Inspector, transport "Streamable HTTP"):' : 'No virtual servers yet.',
    ...input.servers.map((server) => `  ${`${server.tenant}/${server.name}`.padEnd(width)}  ${server.url}`),
    '',
    'No sign-in yet: every virtual server is reachable without a token until the authorization issue lands.',
    `Stop it with Ctrl+C (or: kill -TERM ${input.pid}).`,
    '',
  ];
  return `${lines.join('\n')}\n`;
}
