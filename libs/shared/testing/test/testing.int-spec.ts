import { createServer, type Server } from 'node:http';
import { connect } from 'nats';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bootDistributed,
  BUCKET_PREFIX_ENV,
  createThrowawayDatabase,
  deleteBucketsWithPrefix,
  getFreePort,
  ProcessTracker,
  sendRaw,
  type StartCluster,
  startRoundRobinProxy,
  SUBJECT_PREFIX_ENV,
  testInfrastructure,
  uniqueRunId,
} from '../src/index';

const infrastructure = testInfrastructure();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('createThrowawayDatabase', () => {
  it('creates a database that accepts connections and drops it again', async () => {
    const database = await createThrowawayDatabase(infrastructure.databaseUrl, 'mcp_testing');
    const client = new Client({ connectionString: database.url });
    // The forced drop terminates this connection; that is the point, not an error of the test.
    client.on('error', () => undefined);
    await client.connect();
    const { rows } = await client.query<{ name: string }>('SELECT current_database() AS name');
    expect(rows[0]?.name).toBe(database.name);
    // Still connected: the drop must disconnect it (WITH (FORCE)).
    await database.drop();
    await client.end().catch(() => undefined);
    const admin = new Client({ connectionString: infrastructure.databaseUrl });
    await admin.connect();
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database.name]);
    await admin.end();
    expect(found.rowCount).toBe(0);
  });

  it('refuses a name that is not a plain identifier', async () => {
    await expect(createThrowawayDatabase(infrastructure.databaseUrl, 'x"; DROP DATABASE test; --')).rejects.toThrow(/not a plain database name/);
  });
});

describe('deleteBucketsWithPrefix', () => {
  it('deletes the buckets under the prefix and no other', async () => {
    const prefix = `t_${uniqueRunId()}_`;
    const connection = await connect({ servers: infrastructure.natsUrl });
    const kv = connection.jetstream().views;
    await kv.kv(`${prefix}one`);
    await kv.kv(`${prefix}two`);
    const bystander = `${prefix.slice(0, -1)}x_bystander`;
    await kv.kv(bystander);
    try {
      const deleted = await deleteBucketsWithPrefix(infrastructure.natsUrl, prefix);
      expect(deleted.sort()).toEqual([`KV_${prefix}one`, `KV_${prefix}two`]);
      const manager = await connection.jetstreamManager();
      await expect(manager.streams.info(`KV_${bystander}`)).resolves.toBeDefined();
    } finally {
      const manager = await connection.jetstreamManager();
      await manager.streams.delete(`KV_${bystander}`).catch(() => undefined);
      await connection.close();
    }
  });
});

describe(ProcessTracker, () => {
  describe('stopAll', () => {
    it('stops a process and the children of its group, by pid', async () => {
      const tracker = new ProcessTracker();
      // A parent that starts a child in the same group and prints the child's pid.
      const parent = tracker.start('parent', process.execPath, [
        '-e',
        "const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); console.log(c.pid); setInterval(() => {}, 1000);",
      ]);
      const childPid = await new Promise<number>((resolve) => parent.child.stdout?.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
      expect(isAlive(childPid)).toBe(true);
      await tracker.stopAll(2_000);
      expect(tracker.running()).toEqual([]);
      expect(isAlive(parent.pid)).toBe(false);
      await expect.poll(() => isAlive(childPid), { timeout: 3_000 }).toBe(false);
    });
  });
});

describe('sendRaw', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    const port = await getFreePort();
    // Answers 413 from the Content-Length alone and closes without reading, like a body limit does.
    server = createServer((request, response) => {
      if (Number(request.headers['content-length'] ?? 0) > 1024 * 1024) {
        response.writeHead(413, { connection: 'close', 'content-type': 'application/json' });
        response.end('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"too large"}}', () => request.socket.destroy());
        return;
      }
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end('id: 1\ndata:\n\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n');
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${port}/mcp`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('returns the 413 a server sends from Content-Length alone, before reading the body', async () => {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const answer = await sendRaw({ url, headers: { 'content-type': 'application/json' }, body: 'x'.repeat(5 * 1024 * 1024) });
      expect(answer.status).toBe(413);
      expect(answer.messages).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'too large' } }]);
    }
  });

  it('parses an SSE answer into its JSON-RPC messages, skipping the priming event', async () => {
    const answer = await sendRaw({ url, headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(answer.status).toBe(200);
    expect(answer.messages).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  });
});

describe('bootDistributed', () => {
  let server: Server;
  let brokerUrl: string;

  beforeAll(async () => {
    const port = await getFreePort();
    // Stands in for a broker's readiness probe: the cluster itself is faked.
    server = createServer((_request, response) => response.end('{"status":"ok"}'));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    brokerUrl = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('gives every run its own NATS subject and bucket prefixes and reports them on the handle', async () => {
    const envs: Array<Record<string, string>> = [];
    const startCluster: StartCluster = async ({ env }) => {
      envs.push(env);
      return {
        brokerUrls: [brokerUrl],
        publicUrl: brokerUrl,
        authUrl: brokerUrl,
        issuer: `${brokerUrl}/oauth`,
        demoUser: { username: 'demo', password: 'x' },
        signalBroker: async () => ({ code: 0, signal: null }),
        signalProcess: async () => ({ code: 0, signal: null }),
        restartProcess: async () => undefined,
        processes: [],
        stop: async () => undefined,
      };
    };
    const first = await bootDistributed(startCluster, { infrastructure, databasePrefix: 'mcp_testing' });
    const second = await bootDistributed(startCluster, { infrastructure, databasePrefix: 'mcp_testing' });
    try {
      expect(envs.map((env) => env[SUBJECT_PREFIX_ENV])).toEqual([first.subjectPrefix, second.subjectPrefix]);
      expect(envs.map((env) => env[BUCKET_PREFIX_ENV])).toEqual([first.bucketPrefix, second.bucketPrefix]);
      expect(first.subjectPrefix).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(first.subjectPrefix).not.toBe(second.subjectPrefix);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });
});

describe('startRoundRobinProxy', () => {
  const servers: Server[] = [];
  const backend = async (name: string): Promise<string> => {
    const server = createServer((request, response) => {
      if (request.url === '/stream') {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(`data: ${name} first\n\n`);
        setTimeout(() => response.end(`data: ${name} last\n\n`), 200);
        return;
      }
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => response.writeHead(200, { 'x-backend': name, 'x-host': request.headers.host ?? '' }).end(`${name}:${body}`));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  };

  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('sends each request to the next target in turn, body and Host passed on', async () => {
    const proxy = await startRoundRobinProxy([await backend('a'), await backend('b')]);
    try {
      const answers = [];
      for (let index = 0; index < 4; index++) {
        const response = await fetch(`${proxy.url}/echo`, { method: 'POST', body: `n${index}` });
        answers.push({ text: await response.text(), host: response.headers.get('x-host') });
      }
      expect(answers.map((answer) => answer.text)).toEqual(['a:n0', 'b:n1', 'a:n2', 'b:n3']);
      expect(answers[0]?.host).toBe(new URL(proxy.url).host);
      expect(proxy.counts).toEqual([2, 2]);
    } finally {
      await proxy.close();
    }
  });

  it('streams an answer as it arrives, and answers 502 for a target that is down', async () => {
    const down = `http://127.0.0.1:${await getFreePort()}`;
    const proxy = await startRoundRobinProxy([await backend('c'), down]);
    try {
      const response = await fetch(`${proxy.url}/stream`);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const first = await reader.read();
      // The first event arrives before the backend ends its answer 200 ms later.
      expect(new TextDecoder().decode(first.value)).toBe('data: c first\n\n');
      await reader.cancel();
      const refused = await fetch(`${proxy.url}/stream`);
      expect(refused.status).toBe(502);
    } finally {
      await proxy.close();
    }
  });
});
