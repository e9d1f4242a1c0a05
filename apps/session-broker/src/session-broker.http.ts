import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { internalError, jsonRpcError, JsonRpcErrorCode, type JsonRpcErrorResponse, parseError } from '@mcp-platform/protocol-mcp';
import { METADATA_PREFLIGHT_HEADERS, ProtectedResourceMetadataEndpoint } from './auth/protected-resource-metadata.endpoint';
import { PROTECTED_RESOURCE_METADATA_PREFIX } from './auth/protected-resources';
import { corsHeaders, preflightHeaders } from './edge/cors';
import { McpEndpoint } from './edge/mcp-endpoint.service';
import { UNPARSEABLE_BODY } from './requests/mcp-request';
import type { SessionBrokerOptions } from './session-broker.options';

/** The path of every virtual server's MCP endpoint. */
export const MCP_ROUTE = '/:tenant/:server/mcp';

/** The path of every virtual server's Protected Resource Metadata (RFC 9728 §3.1: the well-known prefix, then the MCP path). */
export const PROTECTED_RESOURCE_METADATA_ROUTE = `${PROTECTED_RESOURCE_METADATA_PREFIX}${MCP_ROUTE}`;

/**
 * Mounts the MCP endpoint on the host's Fastify instance, in its own encapsulated plugin so its body
 * handling does not leak into other apps of the embedded host: the body is read as text and parsed
 * exactly once here (a parse failure becomes `-32700`, not Fastify's error), the body limit answers
 * 413, and every edge refusal carries a JSON-RPC error body. Browser clients of an allowed origin get
 * CORS on everything the route answers (see `edge/cors.ts`), and nothing outside it does. Call it
 * before `app.init()`.
 */
export function configureSessionBrokerHttp(app: NestFastifyApplication, options: Pick<SessionBrokerOptions, 'bodyLimitBytes'>): void {
  const endpoint = app.get(McpEndpoint);
  const fastify = app.getHttpAdapter().getInstance();
  void fastify.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: options.bodyLimitBytes }, (_request, body, done) => {
      try {
        done(null, JSON.parse(body as string));
      } catch {
        done(null, UNPARSEABLE_BODY);
      }
    });

    scope.addHook('onRequest', async (request, reply) => {
      const headers = request.headers;
      // Set on the raw response, so they go out whoever answers: this hook, Fastify, or the endpoint's
      // hijacked writes (a browser must read a 401's WWW-Authenticate to start OAuth).
      const origin = typeof headers.origin === 'string' ? headers.origin : undefined;
      for (const [name, value] of Object.entries(corsHeaders(origin !== undefined && endpoint.allowsOrigin(origin) ? origin : undefined))) {
        reply.raw.setHeader(name, value);
      }
      const rejection = endpoint.rejectEarly(request.method, {
        ...(headers.host === undefined ? {} : { host: headers.host }),
        ...(typeof headers.origin === 'string' ? { origin: headers.origin } : {}),
        ...(typeof headers.accept === 'string' ? { accept: headers.accept } : {}),
      });
      if (!rejection) return;
      // spec S-72: the body MAY be a JSON-RPC error without id.
      await reply
        .code(rejection.status)
        .header('content-type', 'application/json')
        .send(JSON.stringify(jsonRpcError(undefined, JsonRpcErrorCode.InvalidRequest, rejection.reason)));
    });

    scope.setErrorHandler(async (error: { code?: string; statusCode?: number }, _request, reply) => {
      const [status, body] = errorAnswer(error);
      await reply.code(status).header('content-type', 'application/json').send(JSON.stringify(body));
    });

    // CORS preflight (the Host and Origin checks above ran: an origin not allowed got 403).
    scope.route({
      method: 'OPTIONS',
      url: MCP_ROUTE,
      handler: async (request, reply) => {
        const requested = request.headers['access-control-request-headers'];
        return reply
          .code(204)
          .headers(preflightHeaders(typeof request.headers.origin === 'string', typeof requested === 'string' ? requested : undefined))
          .send();
      },
    });

    scope.route({
      method: ['POST', 'GET', 'DELETE'],
      url: MCP_ROUTE,
      bodyLimit: options.bodyLimitBytes,
      handler: (request, reply) => {
        reply.hijack();
        const params = request.params as { tenant: string; server: string };
        return endpoint.handle(
          {
            method: request.method,
            tenant: params.tenant,
            server: params.server,
            headers: request.headers,
            query: (request.query ?? {}) as Record<string, unknown>,
            body: request.body,
            clientAddress: request.ip,
          },
          reply.raw,
        );
      },
    });
  });

  registerProtectedResourceMetadata(app);
}

/**
 * The protected resource metadata routes, outside the MCP plugin: the metadata is public and fetched
 * by browsers, so none of the MCP endpoint's Host/Origin/Accept checks apply to it.
 */
function registerProtectedResourceMetadata(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  const metadata = app.get(ProtectedResourceMetadataEndpoint);
  void fastify.register(async (scope) => {
    scope.route({
      method: 'GET',
      url: PROTECTED_RESOURCE_METADATA_ROUTE,
      handler: async (request, reply) => {
        const params = request.params as { tenant: string; server: string };
        const answer = await metadata.answer(params.tenant, params.server);
        return reply.code(answer.status).headers(answer.headers).header('content-type', 'application/json').send(JSON.stringify(answer.body));
      },
    });
    // CORS preflight for browser-based clients (they may send MCP-Protocol-Version with the GET).
    scope.route({
      method: 'OPTIONS',
      url: PROTECTED_RESOURCE_METADATA_ROUTE,
      handler: async (_request, reply) => reply.code(204).headers(METADATA_PREFLIGHT_HEADERS).send(),
    });
  });
}

/** Fastify's own refusals (before our handler runs), as JSON-RPC error bodies. */
function errorAnswer(error: { code?: string; statusCode?: number }): [number, JsonRpcErrorResponse] {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return [413, jsonRpcError(undefined, JsonRpcErrorCode.InvalidRequest, 'Payload Too Large: the body exceeds the limit')];
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return [415, jsonRpcError(undefined, JsonRpcErrorCode.InvalidRequest, 'Unsupported Media Type: the body must be application/json')];
    default:
      if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) return [400, parseError()];
      return [500, internalError(undefined, 'Internal error')];
  }
}
