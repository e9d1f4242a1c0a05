#!/usr/bin/env node
// The comparison target of the benchmark: the official SDK's single-process Streamable HTTP server
// (@modelcontextprotocol/sdk 1.x, express via createMcpExpressApp), with one tool equivalent to the
// platform's `test_simple_text` fixture and one static text resource (`bench-resource.mjs`, the one the
// platform serves for `BENCH_METHOD=resources/read`). Two modes, each the way the SDK's docs write it:
//   stateless — a new McpServer + transport per request (how its docs scale out);
//   stateful  — one transport per session, kept in a map (Mcp-Session-Id).
// Each mode has an `-auth` variant: the same server behind the SDK's own bearer middleware
// (`requireBearerAuth`), with a verifier doing the checks the platform's broker does on every request
// (jose `jwtVerify` against a local JWKS: RS256 signature, `typ: at+jwt`, issuer, audience = this
// server's MCP URL, `exp`; scope `mcp`). Sessions of `stateful-auth` are bound to the token's subject.
// The key comes from the bench: env SDK_AUTH_JWKS (a JWKS with the public key, JSON) and
// SDK_AUTH_ISSUER; the audience is `http://127.0.0.1:<port>/mcp`, known once listening.
// Usage: node bench/sdk-server.mjs stateless|stateful|stateless-auth|stateful-auth [port];
// prints `listening <port>` once ready.
import { randomUUID } from 'node:crypto';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { BENCH_RESOURCE } from './bench-resource.mjs';

const MODES = ['stateless', 'stateful', 'stateless-auth', 'stateful-auth'];
const mode = process.argv[2];
const port = Number(process.argv[3] ?? 0);
if (!MODES.includes(mode)) {
  console.error(`usage: sdk-server.mjs ${MODES.join('|')} [port]`);
  process.exit(2);
}
const withAuth = mode.endsWith('-auth');
const stateful = mode.startsWith('stateful');

function buildServer() {
  const server = new McpServer({ name: 'sdk-bench', version: '1.0.0' }, { capabilities: { tools: {}, resources: {} } });
  server.registerTool('test_simple_text', { description: 'Tests simple text content response' }, async () => ({
    content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
  }));
  const { name, uri, title, description, mimeType, text } = BENCH_RESOURCE;
  server.registerResource(name, uri, { title, description, mimeType }, async () => ({ contents: [{ uri, mimeType, text }] }));
  return server;
}

/**
 * The bearer check in front of /mcp: the SDK's middleware with a local-JWKS verifier. Built once the
 * port (and so the audience) is known.
 */
let bearer;
/** The middlewares before each /mcp handler: none without auth, so those modes run exactly as before. */
const guards = withAuth ? [(req, res, next) => bearer(req, res, next)] : [];

function configureAuth(resource) {
  const issuer = process.env.SDK_AUTH_ISSUER;
  const jwksText = process.env.SDK_AUTH_JWKS;
  if (!issuer || !jwksText) throw new Error('the -auth modes need SDK_AUTH_ISSUER and SDK_AUTH_JWKS');
  const keys = createLocalJWKSet(JSON.parse(jwksText));
  const verifier = {
    async verifyAccessToken(token) {
      let payload;
      try {
        ({ payload } = await jwtVerify(token, keys, {
          algorithms: ['RS256'],
          typ: 'at+jwt',
          issuer,
          audience: resource,
          requiredClaims: ['exp', 'sub'],
          clockTolerance: 5,
        }));
      } catch {
        throw new InvalidTokenError('the token is not valid for this resource');
      }
      const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [];
      return {
        token,
        clientId: typeof payload.client_id === 'string' ? payload.client_id : '',
        scopes,
        expiresAt: payload.exp,
        resource: new URL(resource),
        extra: { subject: payload.sub, tenant: payload.tenant },
      };
    },
  };
  const url = new URL(resource);
  const resourceMetadataUrl = `${url.origin}/.well-known/oauth-protected-resource${url.pathname}`;
  bearer = requireBearerAuth({ verifier, requiredScopes: ['mcp'], resourceMetadataUrl, expectedResource: url });
  // RFC 9728 metadata, so a 401's resource_metadata leads somewhere (not on the measured path).
  app.get(new URL(resourceMetadataUrl).pathname, (_req, res) => {
    res.json({ resource, authorization_servers: [issuer], scopes_supported: ['mcp'], bearer_methods_supported: ['header'], resource_name: 'sdk-bench' });
  });
}

const app = createMcpExpressApp({ host: '127.0.0.1' });

/** The caller's subject (auth modes) or `undefined`, to bind a session to whoever opened it. */
const subjectOf = (req) => req.auth?.extra?.subject;

if (!stateful) {
  app.post('/mcp', ...guards, async (req, res) => {
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
  /** Session id → its transport and the subject that opened it. */
  const sessions = new Map();
  const sessionFor = (req) => {
    const session = sessions.get(req.headers['mcp-session-id']);
    // Another subject's session id is answered like an unknown one (as the platform's broker does).
    return session && session.subject === subjectOf(req) ? session : undefined;
  };
  app.post('/mcp', ...guards, async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? sessionFor(req)?.transport : undefined;
    if (!transport) {
      if (sessionId !== undefined || !isInitializeRequest(req.body)) {
        res.status(sessionId === undefined ? 400 : 404).json({ jsonrpc: '2.0', error: { code: -32000, message: 'No valid session' }, id: null });
        return;
      }
      const subject = subjectOf(req);
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, { transport: created, subject }),
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      await buildServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, req.body);
  });
  app.delete('/mcp', ...guards, async (req, res) => {
    const transport = sessionFor(req)?.transport;
    if (!transport) return void res.status(404).end();
    await transport.handleRequest(req, res);
  });
}

const listener = app.listen(port, '127.0.0.1', () => {
  const bound = listener.address().port;
  if (withAuth) configureAuth(`http://127.0.0.1:${bound}/mcp`);
  console.log(`listening ${bound}`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => listener.close(() => process.exit(0)));
