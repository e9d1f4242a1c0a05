import { readFile } from 'node:fs/promises';
import {
  Client,
  ClientCredentialsProvider,
  ProtocolError,
  SdkError,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Agent } from 'undici';
import { Clock, IdSource } from '@mcp-platform/shared-clock';
import { createGuardedAgent, describeOutboundFailure, findSsrfRefusal } from '@mcp-platform/shared-egress';
import type { OpenedConnection, UpstreamSource } from './upstream.types';
import { UPSTREAM_CLIENT_CAPABILITIES, UpstreamCallRouting } from './upstream-call-routing';
import { UpstreamClient } from './upstream-client';
import { upstreamFetch } from './upstream-fetch';
import { UpstreamHealthTracker } from './upstream-health';
import { UpstreamSecrets } from './upstream-secrets';
import type { StoredSource } from './upstream-sources.repository';
import { UPSTREAM_OPTIONS, type UpstreamOptions } from './upstreams.constants';

/** What the platform says of itself to upstreams. */
const CLIENT_INFO = { name: 'mcp-platform', version: '0.1.0' };

/** An upstream could not be used: unreachable, not an MCP server, gone mid-call, or its circuit is open. */
export class UpstreamUnavailable extends Error {
  constructor(
    message: string,
    readonly errorId: string,
  ) {
    super(message);
    this.name = 'UpstreamUnavailable';
  }
}

/** One live connection to a source on this replica. */
interface Connection {
  version: string;
  client: Client;
  transport: Transport;
  /** Calls using it right now (idle stop waits for none). */
  busy: number;
  /** When a call last started on it (epoch ms). */
  lastUsedAt: number;
  idleTimer?: () => void;
  stopWatch?: () => void;
}

/** How the connector tells the rest of the executor what an upstream said on its own. */
export interface UpstreamListener {
  /** The upstream said its tools, prompts or resources changed (`list_changed`). */
  listChanged?(source: UpstreamSource): void;
  /** The upstream said a resource changed (`notifications/resources/updated`); the URI is as it sent it, unchecked. */
  resourceUpdated?(source: UpstreamSource, uri: string): void;
  /** A new connection to the source is up (first use, or after one was lost): what lived on the old one is gone. */
  connected?(source: UpstreamSource): void;
}

/**
 * The executor's connections to upstream MCP servers, one per source on each replica, opened on first
 * use with the official client SDK (2.x): Streamable HTTP of either era (`server/discover`, then the
 * 2025 `initialize`), the deprecated HTTP+SSE transport, or a stdio child of the operator's allow-list.
 * HTTP goes through the SSRF guard with answers capped; a stdio child gets a minimal environment, its
 * stderr in the log, an RSS ceiling and an idle stop. A legacy upstream that forgot the session (404)
 * is initialized again and the request sent once more; a connection that fails is dropped and counted
 * by the health tracker, whose open circuit refuses calls at once.
 */
@Injectable()
export class UpstreamConnections implements OnApplicationShutdown {
  private readonly logger = new Logger(UpstreamConnections.name);
  private readonly connections = new Map<string, Promise<Connection>>();
  private readonly agent: Agent;
  private readonly listeners: UpstreamListener[] = [];

  constructor(
    @Inject(UPSTREAM_OPTIONS) private readonly options: UpstreamOptions,
    readonly health: UpstreamHealthTracker,
    private readonly routing: UpstreamCallRouting,
    private readonly secrets: UpstreamSecrets,
    private readonly clock: Clock,
    private readonly ids: IdSource,
  ) {
    this.agent = createGuardedAgent(
      { allowPrivateNetworks: options.allowPrivateNetworks, allowedHosts: options.allowedHosts },
      // Under the 5 s most HTTP servers (Node's among them) keep an idle socket: fewer requests meet one closed.
      { connectTimeoutMs: options.connectTimeoutMs, keepAliveTimeoutMs: 4_000 },
    );
  }

  listen(listener: UpstreamListener): void {
    this.listeners.push(listener);
  }

  /**
   * Runs `work` with a connected client of the source (its secrets are opened only when a connection
   * must be made). Throws {@link UpstreamUnavailable} when the upstream cannot be
   * used; errors the upstream answered (a JSON-RPC error) pass through as they are, and so does the
   * caller's own abort (`signal`: a cancelled call), which leaves the connection as it is.
   */
  async use<T>(source: StoredSource, work: (client: Client) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const open = (): OpenedConnection => this.secrets.open(source.tenant, source.name, source.stored);
    const label = labelOf(source);
    try {
      this.health.assertClosed(source.id, label);
    } catch (error) {
      throw new UpstreamUnavailable((error as Error).message, this.ids.newId());
    }
    for (let attempt = 1; ; attempt += 1) {
      const connection = await this.connection(source, open);
      const idleMs = connection.busy === 0 ? this.clock.now() - connection.lastUsedAt : 0;
      connection.busy += 1;
      connection.lastUsedAt = this.clock.now();
      connection.idleTimer?.();
      try {
        const result = await work(connection.client);
        this.health.succeeded(source.id, label);
        return result;
      } catch (error) {
        if (isUpstreamAnswer(error) || signal?.aborted) throw error;
        await this.drop(source.id, connection);
        // A legacy upstream that restarted or expired the session answers 404 (S-84): a new session, once.
        if (attempt === 1 && isSessionGone(error)) {
          this.logger.log(`upstream ${label} forgot its session: initializing a new one`);
          continue;
        }
        // A kept-alive socket the upstream closed while the connection sat idle fails the request before
        // the upstream read it: once more on a new connection (a busy one could have been read, and is not).
        if (attempt === 1 && idleMs >= STALE_AFTER_IDLE_MS && isNetworkFailure(error)) {
          this.logger.log(`upstream ${label}: the connection idle for ${idleMs} ms was closed under it: connecting again`);
          continue;
        }
        throw this.unavailable(source, error);
      } finally {
        connection.busy -= 1;
        this.armIdleStop(source, connection);
      }
    }
  }

  /** The source answers but not fully (its catalog was cut at a limit): logged under an error id and kept in its health. */
  degraded(source: UpstreamSource, detail: string): void {
    this.health.degraded(source.id, labelOf(source), this.ids.newId(), detail);
  }

  /** Closes the source's connection on this replica (it changed or was deleted). */
  async close(sourceId: string): Promise<void> {
    const pending = this.connections.get(sourceId);
    if (!pending) return;
    this.connections.delete(sourceId);
    const connection = await pending.catch(() => undefined);
    if (connection) await this.shut(connection);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.connections.keys()].map((id) => this.close(id)));
    await this.agent.close();
  }

  private connection(source: UpstreamSource, open: () => OpenedConnection): Promise<Connection> {
    const version = source.connectionVersion;
    const existing = this.connections.get(source.id);
    if (existing) {
      return existing.then(async (connection) => {
        if (connection.version === version) return connection;
        await this.close(source.id);
        return this.connection(source, open);
      });
    }
    const connecting = this.connect(source, open(), version).catch((error: unknown) => {
      throw this.unavailable(source, error);
    });
    this.connections.set(source.id, connecting);
    connecting.catch(() => {
      if (this.connections.get(source.id) === connecting) this.connections.delete(source.id);
    });
    return connecting;
  }

  /**
   * Connects, once more after a network failure: a kept-alive socket the upstream closed just then (its
   * restart, or the stream of the connection just dropped) fails the first request with nothing sent.
   */
  private async connect(source: UpstreamSource, opened: OpenedConnection, version: string): Promise<Connection> {
    try {
      return await this.connectOnce(source, opened, version);
    } catch (error) {
      const cause = error instanceof UpstreamUnavailable ? error.cause : error;
      if (cause instanceof SdkHttpError || cause instanceof ProtocolError) throw error;
      return this.connectOnce(source, opened, version);
    }
  }

  private async connectOnce(source: UpstreamSource, opened: OpenedConnection, version: string): Promise<Connection> {
    const label = labelOf(source);
    const listChanged = (): void => this.listeners.forEach((listener) => listener.listChanged?.(source));
    const client = new UpstreamClient(CLIENT_INFO, {
      capabilities: UPSTREAM_CLIENT_CAPABILITIES,
      versionNegotiation: { mode: 'auto' },
      listChanged: {
        tools: { autoRefresh: false, debounceMs: 200, onChanged: listChanged },
        prompts: { autoRefresh: false, debounceMs: 200, onChanged: listChanged },
        resources: { autoRefresh: false, debounceMs: 200, onChanged: listChanged },
      },
    });
    this.routing.attach(client, label);
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      for (const listener of this.listeners) listener.resourceUpdated?.(source, notification.params.uri);
    });
    const transport = this.transportOf(source, opened);
    const connection: Connection = { version, client, transport, busy: 0, lastUsedAt: this.clock.now() };
    try {
      await client.connect(transport, { timeout: this.options.connectTimeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    client.onclose = () => {
      const current = this.connections.get(source.id);
      void current?.then((live) => {
        if (live === connection) this.connections.delete(source.id);
      });
    };
    if (transport instanceof StdioClientTransport) connection.stopWatch = this.watchChild(source, transport);
    const server = client.getServerVersion();
    this.health.connected(source.id, label, {
      era: client.getProtocolEra() === 'modern' ? 'modern' : 'legacy',
      ...(client.getNegotiatedProtocolVersion() ? { protocolVersion: client.getNegotiatedProtocolVersion() } : {}),
      ...(server ? { serverInfo: { name: String(server.name).slice(0, 256), version: String(server.version).slice(0, 64) } } : {}),
    });
    this.armIdleStop(source, connection);
    for (const listener of this.listeners) listener.connected?.(source);
    return connection;
  }

  private transportOf(source: UpstreamSource, opened: OpenedConnection): Transport {
    if (opened.transport === 'stdio') {
      const transport = new StdioClientTransport({
        command: opened.command,
        args: opened.args,
        env: { PATH: this.options.stdioPath, ...opened.env },
        stderr: 'pipe',
        ...(opened.cwd === undefined ? {} : { cwd: opened.cwd }),
      });
      this.logStderr(source, transport);
      return transport;
    }
    const fetch = upstreamFetch(this.agent, opened.headers);
    const authProvider = opened.clientCredentials
      ? new ClientCredentialsProvider({
          clientId: opened.clientCredentials.clientId,
          clientSecret: opened.clientCredentials.clientSecret,
          ...(opened.clientCredentials.scope ? { scope: opened.clientCredentials.scope } : {}),
        })
      : undefined;
    const options = { fetch, ...(authProvider ? { authProvider } : {}) };
    return opened.transport === 'sse' ? new SSEClientTransport(opened.url, options) : new StreamableHTTPClientTransport(opened.url, options);
  }

  /** The child's stderr, line by line, in the executor's log (each line cut at 1,000 characters, at most 20 lines a second). */
  private logStderr(source: UpstreamSource, transport: StdioClientTransport): void {
    let windowStart = 0;
    let lines = 0;
    let partial = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      const text = partial + chunk.toString('utf8');
      const parts = text.split('\n');
      partial = (parts.pop() ?? '').slice(-1_000);
      for (const line of parts) {
        const now = this.clock.now();
        if (now - windowStart >= 1_000) {
          windowStart = now;
          lines = 0;
        }
        lines += 1;
        if (lines <= 20) this.logger.log(`upstream ${labelOf(source)} stderr: ${line.slice(0, 1_000)}`);
        else if (lines === 21) this.logger.warn(`upstream ${labelOf(source)} stderr: more lines this second are not logged`);
      }
    });
  }

  /** Kills a child whose resident memory passes the ceiling; the connection then closes and the next use starts another. */
  private watchChild(source: UpstreamSource, transport: StdioClientTransport): () => void {
    const check = async (): Promise<void> => {
      const pid = transport.pid;
      if (pid === null) return;
      const rss = await residentBytes(pid);
      if (rss !== undefined && rss > this.options.stdioMaxRssBytes) {
        this.logger.warn(`upstream ${labelOf(source)}: stdio child ${pid} uses ${rss} bytes, over ${this.options.stdioMaxRssBytes}: stopping it`);
        process.kill(pid, 'SIGKILL');
      }
    };
    const timer = setInterval(() => void check().catch(() => undefined), this.options.stdioWatchIntervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** A stdio child with no call for `idleMs` is stopped; HTTP connections stay (they hold the upstream's list_changed stream). */
  private armIdleStop(source: UpstreamSource, connection: Connection): void {
    if (!(connection.transport instanceof StdioClientTransport) || connection.busy > 0) return;
    connection.idleTimer?.();
    connection.idleTimer = this.clock.schedule(this.options.idleMs, () => {
      if (connection.busy > 0) return;
      this.logger.log(`upstream ${labelOf(source)}: stdio server idle for ${this.options.idleMs} ms, stopping it`);
      void this.drop(source.id, connection);
    });
  }

  private async drop(sourceId: string, connection: Connection): Promise<void> {
    const current = this.connections.get(sourceId);
    if (current && (await current.catch(() => undefined)) === connection) this.connections.delete(sourceId);
    await this.shut(connection);
  }

  private async shut(connection: Connection): Promise<void> {
    connection.idleTimer?.();
    connection.stopWatch?.();
    await connection.client.close().catch(() => undefined);
  }

  /** Logs the failure under an error id, counts it, and answers what a caller may read. */
  private unavailable(source: UpstreamSource, error: unknown): UpstreamUnavailable {
    if (error instanceof UpstreamUnavailable) return error;
    const errorId = this.ids.newId();
    const detail = describeUpstreamFailure(error);
    this.health.failed(source.id, labelOf(source), errorId, detail);
    return new UpstreamUnavailable(`The upstream server ${source.name} could not be used (error id ${errorId}).`, errorId);
  }
}

/** `<tenant>/<source>`, as logs name a source. */
export function labelOf(source: Pick<UpstreamSource, 'tenant' | 'name'>): string {
  return `${source.tenant}/${source.name}`;
}

/** An error the upstream itself answered (JSON-RPC error): the connection is fine. */
function isUpstreamAnswer(error: unknown): boolean {
  return error instanceof ProtocolError;
}

/** How long a connection must have sat idle for a network failure to count as a socket closed while idle. */
const STALE_AFTER_IDLE_MS = 1_000;

/** A failure of the network under a request (reset, refused, closed), not an answer of the upstream's. */
function isNetworkFailure(error: unknown): boolean {
  if (error instanceof SdkHttpError || error instanceof ProtocolError) return false;
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (/fetch failed|ECONNRESET|EPIPE|socket hang up|other side closed|ECONNREFUSED/i.test(`${cause.message} ${(cause as { code?: string }).code ?? ''}`))
      return true;
  }
  return false;
}

/** A legacy upstream's 404 for our session id: it restarted or expired the session. */
function isSessionGone(error: unknown): boolean {
  return error instanceof SdkHttpError && error.status === 404;
}

/** What went wrong, for administrators (it may name hosts and addresses). */
export function describeUpstreamFailure(error: unknown): string {
  const refusal = findSsrfRefusal(error);
  if (refusal) {
    return `refused by the SSRF guard: ${refusal.message}. Upstream URLs reach only public addresses unless the operator sets UPSTREAM_ALLOW_PRIVATE_NETWORKS=true or names the host in UPSTREAM_ALLOWED_HOSTS`;
  }
  if (error instanceof SdkHttpError) return `HTTP ${error.status}: ${error.message.slice(0, 300)}`;
  if (error instanceof SdkError) return `${error.code}: ${error.message.slice(0, 300)}`;
  return describeOutboundFailure(error);
}

async function residentBytes(pid: number): Promise<number | undefined> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined);
  const kib = status && /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  return kib ? Number(kib) * 1024 : undefined;
}
