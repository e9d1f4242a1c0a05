import type { StdioServers } from './stdio-servers';

/** Injection token of {@link UpstreamOptions}. */
export const UPSTREAM_OPTIONS = Symbol('UPSTREAM_OPTIONS');

/** How the executor reaches upstream MCP servers (issue 15). */
export interface UpstreamOptions {
  /** Let upstream URLs reach loopback/private/link-local addresses (the SSRF guard refuses them otherwise). */
  allowPrivateNetworks: boolean;
  /** Host names exempt from the SSRF guard (an upstream on the operator's own network). */
  allowedHosts: string[];
  /** The operator's allow-list of stdio servers (`UPSTREAM_STDIO_SERVERS`). */
  stdioServers: StdioServers;
  /** The PATH a stdio child gets (and its command is looked up in), unless its entry sets one. */
  stdioPath: string;
  /** Derives the key that seals sources' secrets (`TOOL_SECRETS_KEY`); absent, no secret can be stored. */
  secretsKey?: string;
  /** Connection and handshake bound. */
  connectTimeoutMs: number;
  /** One call to an upstream, when its source sets none. */
  callTimeoutMs: number;
  /** A stdio child without a call for this long is stopped (the next call starts it again). */
  idleMs: number;
  /** A stdio child whose resident memory passes this is killed. */
  stdioMaxRssBytes: number;
  /** How often a source's catalog is read again in the background (changes an upstream never announced, a source that was down); 0: never. */
  resyncMs: number;
  /** How often a replica looks for sources due to be read (or retried after a failed read). */
  resyncCheckMs: number;
  /** The first retry of a failed background read; each next one waits twice as long, up to `resyncMs`. */
  resyncRetryMs: number;
  /** How often a stdio child's memory is read. */
  stdioWatchIntervalMs: number;
}

export const DEFAULT_UPSTREAM_OPTIONS: UpstreamOptions = {
  allowPrivateNetworks: false,
  allowedHosts: [],
  stdioServers: {},
  stdioPath: '/usr/local/bin:/usr/bin:/bin',
  connectTimeoutMs: 10_000,
  callTimeoutMs: 60_000,
  idleMs: 5 * 60_000,
  stdioMaxRssBytes: 512 * 1024 * 1024,
  stdioWatchIntervalMs: 2_000,
  resyncMs: 15 * 60_000,
  resyncCheckMs: 15_000,
  resyncRetryMs: 15_000,
};
