import { type toolExecutor } from '@mcp-platform/protocol-contracts';
import type { SealedSecret, SecretBox } from '../credentials/secret-box';
import { checkStdioParams, renderStdioServer, type StdioServers } from './stdio-servers';
import type { OpenedConnection, SecretRef, StoredAuth, StoredConnection } from './upstream.types';

type ConnectionWrite = toolExecutor.UpstreamSourceDefinitionRecord['connection'];
type ConnectionView = NonNullable<toolExecutor.UpstreamSourceView['connection']>;
type SecretWrite = string | { set: true };

/** A write the executor refuses, with a message for the administrator. */
export class UpstreamWriteRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UpstreamWriteRefused';
  }
}

/** What a source stores: its connection with references in place of secrets, and the sealed secrets. */
export interface StoredSecrets {
  connection: StoredConnection;
  secrets: Record<string, SealedSecret>;
}

const SET = { set: true as const };

/**
 * Turns the connections administrators write into what is stored (every secret sealed, bound to its
 * tenant, source and reference) and back into what the connector uses (secrets opened, stdio entries
 * rendered) or what the admin API shows (secrets as `{ set: true }`). A `{ set: true }` in a write keeps
 * the stored secret, but only at the same reference of the same URL's origin: a source moved to another
 * origin does not take its secrets along.
 */
export class UpstreamSecrets {
  constructor(
    private readonly box: SecretBox,
    readonly stdioServers: StdioServers,
  ) {}

  seal(tenant: string, source: string, write: ConnectionWrite, stored?: StoredSecrets): StoredSecrets {
    const secrets: Record<string, SealedSecret> = {};
    const keep = (ref: string, value: SecretWrite): SecretRef => {
      const context = `${tenant}/${source}/${ref}`;
      if (typeof value === 'string') secrets[ref] = this.box.seal(value, context);
      else {
        const previous = stored && sameOrigin(stored.connection, write) ? stored.secrets[ref] : undefined;
        if (!previous) throw new UpstreamWriteRefused(`${ref} has no stored value to keep: give its value`);
        secrets[ref] = previous;
      }
      return { secret: ref };
    };
    if (write.transport === 'stdio') {
      const entry = this.stdioServers[write.server];
      if (!entry) throw new UpstreamWriteRefused(`the operator allows no stdio server named ${write.server}`);
      const problems = checkStdioParams(entry, write.params);
      if (problems.length) throw new UpstreamWriteRefused(`stdio server ${write.server}: ${problems.join('; ')}`);
      const params: Record<string, string | SecretRef> = {};
      for (const [name, value] of Object.entries(write.params)) {
        const secret = entry.params[name]?.secret ?? false;
        if (!secret && typeof value !== 'string') throw new UpstreamWriteRefused(`parameter ${name} is not secret: give its value`);
        params[name] = secret ? keep(`param:${name}`, value) : (value as string);
      }
      return { connection: { transport: 'stdio', server: write.server, params }, secrets };
    }
    return { connection: { transport: write.transport, url: write.url, auth: sealAuth(write.auth, keep) }, secrets };
  }

  /** The connection with its secrets opened and, for stdio, the operator's entry rendered. */
  open(tenant: string, source: string, stored: StoredSecrets): OpenedConnection {
    const reveal = (ref: SecretRef): string => {
      const sealed = stored.secrets[ref.secret];
      if (!sealed) throw new Error(`source ${tenant}/${source} lost its secret ${ref.secret}`);
      return this.box.open(sealed, `${tenant}/${source}/${ref.secret}`);
    };
    const { connection } = stored;
    if (connection.transport === 'stdio') {
      const entry = this.stdioServers[connection.server];
      if (!entry) throw new Error(`the operator no longer allows the stdio server ${connection.server}`);
      const values = Object.fromEntries(Object.entries(connection.params).map(([name, value]) => [name, typeof value === 'string' ? value : reveal(value)]));
      return { transport: 'stdio', ...renderStdioServer(entry, values) };
    }
    const url = new URL(connection.url);
    const headers: Record<string, string> = {};
    const { auth } = connection;
    if (auth.kind === 'headers') for (const [name, ref] of Object.entries(auth.headers)) headers[name] = reveal(ref);
    if (auth.kind === 'query') for (const [name, ref] of Object.entries(auth.params)) url.searchParams.set(name, reveal(ref));
    return {
      transport: connection.transport,
      url,
      headers,
      ...(auth.kind === 'client-credentials'
        ? { clientCredentials: { clientId: auth.clientId, clientSecret: reveal(auth.clientSecret), ...(auth.scope ? { scope: auth.scope } : {}) } }
        : {}),
    };
  }
}

/** The connection as the admin API shows it: every secret as `{ set: true }`. */
export function connectionView(connection: StoredConnection): ConnectionView {
  if (connection.transport === 'stdio') {
    return {
      transport: 'stdio',
      server: connection.server,
      params: Object.fromEntries(Object.entries(connection.params).map(([name, value]) => [name, typeof value === 'string' ? value : SET])),
    };
  }
  const { auth } = connection;
  const authView =
    auth.kind === 'headers'
      ? { kind: 'headers' as const, headers: mapValues(auth.headers, () => SET) }
      : auth.kind === 'query'
        ? { kind: 'query' as const, params: mapValues(auth.params, () => SET) }
        : auth.kind === 'client-credentials'
          ? { kind: 'client-credentials' as const, clientId: auth.clientId, clientSecret: SET, ...(auth.scope ? { scope: auth.scope } : {}) }
          : { kind: 'none' as const };
  return { transport: connection.transport, url: connection.url, auth: authView };
}

function sealAuth(auth: toolExecutor.UpstreamAuthRecord, keep: (ref: string, value: SecretWrite) => SecretRef): StoredAuth {
  switch (auth.kind) {
    case 'none':
      return { kind: 'none' };
    case 'headers':
      return {
        kind: 'headers',
        headers: Object.fromEntries(Object.entries(auth.headers).map(([name, value]) => [name.toLowerCase(), keep(`header:${name.toLowerCase()}`, value)])),
      };
    case 'query':
      return { kind: 'query', params: Object.fromEntries(Object.entries(auth.params).map(([name, value]) => [name, keep(`query:${name}`, value)])) };
    case 'client-credentials':
      return {
        kind: 'client-credentials',
        clientId: auth.clientId,
        clientSecret: keep('client-secret', auth.clientSecret),
        ...(auth.scope ? { scope: auth.scope } : {}),
      };
  }
}

/** Whether a write keeps the stored connection's transport and (for URLs) origin, so kept secrets may stay. */
function sameOrigin(stored: StoredConnection, write: ConnectionWrite): boolean {
  if (stored.transport === 'stdio' || write.transport === 'stdio')
    return stored.transport === 'stdio' && write.transport === 'stdio' && write.server === stored.server;
  return stored.transport === write.transport && URL.canParse(stored.url) && new URL(stored.url).origin === new URL(write.url).origin;
}

function mapValues<V, W>(record: Record<string, V>, map: (value: V) => W): Record<string, W> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));
}
