import type { toolExecutor } from '@mcp-platform/protocol-contracts';

/** One seeded (or registered) virtual server and the URL an MCP client connects to. */
export interface VirtualServerEndpoint {
  tenant: string;
  name: string;
  title?: string;
  /** Anonymous callers allowed (an explicit choice of the tenant's admin). */
  public?: boolean;
  url: string;
}

/** The canonical MCP URL of a virtual server: `<public URL>/<tenant>/<server>/mcp`. */
export function virtualServerUrl(publicUrl: string, server: Pick<toolExecutor.VirtualServer, 'tenant' | 'name'>): string {
  return `${publicUrl.replace(/\/+$/, '')}/${encodeURIComponent(server.tenant)}/${encodeURIComponent(server.name)}/mcp`;
}

/** What a person reads once the platform is up: where to point a client, and how to stop it. */
export function readyBanner(input: {
  mode: string;
  url: string;
  servers: readonly VirtualServerEndpoint[];
  dataDir?: string;
  pid: number;
  /** Where users sign in and who can: printed so the demo needs no other setup. */
  auth?: { authUrl: string; demoUser: { username: string; password: string }; adminUsername?: string };
}): string {
  const width = Math.max(0, ...input.servers.map((server) => `${server.tenant}/${server.name}`.length));
  const lines = [
    '',
    `MCP platform (${input.mode}) is ready at ${input.url}`,
    ...dataLines(input.dataDir),
    '',
    input.servers.length ? 'Virtual servers (paste a URL into an MCP client, e.g. MCP Inspector, transport "Streamable HTTP"):' : 'No virtual servers yet.',
    ...input.servers.map((server) => `  ${`${server.tenant}/${server.name}`.padEnd(width)}  ${server.url}${server.public ? '  (public: no sign-in)' : ''}`),
    '',
    ...authLines(input.auth),
    `Stop it with Ctrl+C (or: kill -TERM ${input.pid}).`,
    '',
  ];
  return `${lines.join('\n')}\n`;
}

/** Where the data is kept, and how to start afresh. */
function dataLines(dataDir: string | undefined): string[] {
  if (!dataDir) return ['Data: in memory (gone when the process stops)'];
  return [`Data directory: ${dataDir}`, '  (kept across restarts, with the demo password; stop the platform and delete it to start afresh)'];
}

/** How to sign in: the demo user's credentials (a client's OAuth flow opens the sign-in page), the admin API. */
function authLines(auth: { authUrl: string; demoUser: { username: string; password: string }; adminUsername?: string } | undefined): string[] {
  if (!auth) return [];
  return [
    'Protected servers ask the client to sign in (OAuth 2.1; the client opens the sign-in page in a browser):',
    `  demo user      ${auth.demoUser.username} / ${auth.demoUser.password}   (tenant demo)`,
    ...(auth.adminUsername ? [`  platform admin ${auth.adminUsername} (password from ADMIN_PASSWORD)`] : []),
    `  OAuth issuer   ${auth.authUrl}/oauth`,
    `  admin API      ${auth.authUrl}/admin/v1   (OpenAPI: ${auth.authUrl}/admin/docs)`,
    '',
  ];
}
