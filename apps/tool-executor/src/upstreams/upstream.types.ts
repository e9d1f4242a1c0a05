import type { toolExecutor } from '@mcp-platform/protocol-contracts';

/**
 * A secret's place in a stored connection: a reference into the source's sealed `secrets` (`header:<name>`,
 * `query:<name>`, `client-secret`, `param:<name>`). Issue 16's vault adds references to a tenant's or a
 * user's credentials; the connection's shape does not change.
 */
export interface SecretRef {
  secret: string;
}

/** How a stored source authenticates to its upstream; each secret is a reference. */
export type StoredAuth =
  | { kind: 'none' }
  | { kind: 'headers'; headers: Record<string, SecretRef> }
  | { kind: 'query'; params: Record<string, SecretRef> }
  | { kind: 'client-credentials'; clientId: string; clientSecret: SecretRef; scope?: string };

/** Where a stored source is: a URL of either HTTP transport, or an allow-listed stdio entry with its parameters. */
export type StoredConnection =
  { transport: 'streamable-http' | 'sse'; url: string; auth: StoredAuth } | { transport: 'stdio'; server: string; params: Record<string, string | SecretRef> };

/** A source as the executor uses it: identity, connection with secrets still sealed, pinning and limits. */
export interface UpstreamSource {
  id: string;
  tenant: string;
  name: string;
  title?: string;
  connection: StoredConnection;
  prefix: string | null;
  policy: toolExecutor.ApprovalPolicy;
  timeoutMs?: number;
  enabled: boolean;
  /** The virtual servers that get its prompts, resources and templates; empty: all of the tenant's. */
  servers: string[];
  health: toolExecutor.UpstreamHealth;
  /**
   * What the connection is made from (connection and sealed secrets), as a digest: a replica holding a
   * connection of another version makes a new one. Not the row's update time, which health writes move.
   */
  connectionVersion: string;
}

/** A connection with its secrets opened: what the connector needs, never stored nor logged. */
export type OpenedConnection =
  | {
      transport: 'streamable-http' | 'sse';
      url: URL;
      headers: Record<string, string>;
      clientCredentials?: { clientId: string; clientSecret: string; scope?: string };
    }
  | { transport: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string };
