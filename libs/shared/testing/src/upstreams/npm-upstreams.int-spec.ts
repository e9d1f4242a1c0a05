import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { everythingServerCommand, filesystemServerCommand, memoryServerCommand, startEverythingHttp } from './npm-upstreams';
import type { StdioServerCommand } from './stdio-upstream-command';

const CLIENT_INFO = { name: 'fixture-spec', version: '1.0.0' };

describe('the npm reference servers', () => {
  let directory: string;
  const open: Client[] = [];

  async function toolsOver(transport: StdioClientTransport | StreamableHTTPClientTransport | SSEClientTransport): Promise<string[]> {
    const client = new Client(CLIENT_INFO);
    await client.connect(transport);
    open.push(client);
    return (await client.listTools()).tools.map((tool) => tool.name);
  }

  const stdio = (command: StdioServerCommand) => new StdioClientTransport({ ...command, stderr: 'pipe' });

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'mcp-npm-upstreams-'));
    await writeFile(join(directory, 'hello.txt'), 'hello from the fixture');
  });
  afterEach(async () => {
    await Promise.allSettled(open.splice(0).map((client) => client.close()));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('everything lists its tools over stdio and echoes', async () => {
    const tools = await toolsOver(stdio(everythingServerCommand()));
    expect(tools).toContain('echo');
    const result = await open[0]?.callTool({ name: 'echo', arguments: { message: 'hi' } });
    expect(JSON.stringify(result?.content)).toContain('hi');
  });

  it('filesystem lists its tools over stdio and reads only its allowed directory', async () => {
    const tools = await toolsOver(stdio(filesystemServerCommand([directory])));
    expect(tools).toContain('read_text_file');
    const client = open[0];
    const read = await client?.callTool({ name: 'read_text_file', arguments: { path: join(directory, 'hello.txt') } });
    expect(JSON.stringify(read?.content)).toContain('hello from the fixture');
    const outside = await client?.callTool({ name: 'read_text_file', arguments: { path: join(tmpdir(), 'not-allowed.txt') } });
    expect(outside?.isError).toBe(true);
    expect(() => filesystemServerCommand([])).toThrow(/at least one/);
  });

  it('memory lists its tools over stdio and keeps its graph in the given file', async () => {
    const memoryFile = join(directory, 'memory.jsonl');
    const tools = await toolsOver(stdio(memoryServerCommand(memoryFile)));
    expect(tools).toContain('create_entities');
    await open[0]?.callTool({ name: 'create_entities', arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote programs'] }] } });
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(memoryFile, 'utf8')).toContain('"Ada"');
  });

  describe('startEverythingHttp', () => {
    it('serves Streamable HTTP on loopback until closed', async () => {
      const everything = await startEverythingHttp();
      try {
        expect(everything.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
        expect(await toolsOver(new StreamableHTTPClientTransport(new URL(everything.url)))).toContain('echo');
      } finally {
        await Promise.allSettled(open.splice(0).map((client) => client.close()));
        await everything.close();
      }
      await expect(fetch(everything.url, { method: 'DELETE', signal: AbortSignal.timeout(1_000) })).rejects.toThrow();
      expect(() => process.kill(everything.pid, 0)).toThrow();
    });

    it('serves HTTP+SSE on loopback', async () => {
      const everything = await startEverythingHttp({ transport: 'sse' });
      try {
        expect(everything.url).toMatch(/\/sse$/);
        expect(await toolsOver(new SSEClientTransport(new URL(everything.url)))).toContain('echo');
      } finally {
        await Promise.allSettled(open.splice(0).map((client) => client.close()));
        await everything.close();
      }
    });
  });
});
