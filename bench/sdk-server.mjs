#!/usr/bin/env node
// The comparison target of the benchmark: the official SDK's single-process Streamable HTTP server
// (@modelcontextprotocol/sdk 1.x, express via createMcpExpressApp), with one tool equivalent to the
// platform's `test_simple_text` fixture. Two modes, each the way the SDK's docs write it:
//   stateless — a new McpServer + transport per request (how its docs scale out);
//   stateful  — one transport per session, kept in a map (Mcp-Session-Id).
// Usage: node bench/sdk-server.mjs stateless|stateful [port]; prints `listening <port>` once ready.
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const mode = process.argv[2];
const port = Number(process.argv[3] ?? 0);
if (mode !== 'stateless' && mode !== 'stateful') {
  console.error('usage: sdk-server.mjs stateless|stateful [port]');
  process.exit(2);
}

function buildServer() {
  const server = new McpServer({ name: 'sdk-bench', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('test_simple_text', { description: 'Tests simple text content response' }, async () => ({
    content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
  }));
  return server;
}

const app = createMcpExpressApp({ host: '127.0.0.1' });

if (mode === 'stateless') {
  app.post('/mcp', async (req, res) => {
    const server = buildServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (error) {
      if (!res.headersSent) res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: String(error) }, id: null });
    }
  });
} else {
  const transports = new Map();
  app.post('/mcp', async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId !== undefined || !isInitializeRequest(req.body)) {
        res.status(sessionId === undefined ? 400 : 404).json({ jsonrpc: '2.0', error: { code: -32000, message: 'No valid session' }, id: null });
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) transports.delete(transport.sessionId);
      };
      await buildServer().connect(transport);
    }
    await transport.handleRequest(req, res, req.body);
  });
  app.delete('/mcp', async (req, res) => {
    const transport = transports.get(req.headers['mcp-session-id']);
    if (!transport) return void res.status(404).end();
    await transport.handleRequest(req, res);
  });
}

const listener = app.listen(port, '127.0.0.1', () => {
  console.log(`listening ${listener.address().port}`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => listener.close(() => process.exit(0)));
