import type { ServerResponse } from 'node:http';
import formbody from '@fastify/formbody';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type InteractionExchange, type InteractionForm, type InteractionOutcome, InteractionsService } from './interactions/interactions.service';
import { OAuthProviderService } from './oauth/oauth-provider.service';
import { PAGE_HEADERS, renderMessagePage } from './pages/pages';
import { RegistrationThrottle } from './throttling/registration.throttle';

/** Where the provider is mounted on this app's HTTP server (the issuer's path is `${AUTH_PUBLIC_URL}/oauth`). */
export const OAUTH_MOUNT = '/oauth';

/** The RFC 8414 path-inserted metadata URLs of the issuer `…/oauth` (S-157): both serve the provider's discovery document. */
export const WELL_KNOWN_METADATA_PATHS = [`/.well-known/oauth-authorization-server${OAUTH_MOUNT}`, `/.well-known/openid-configuration${OAUTH_MOUNT}`] as const;

/** The body limit of the sign-in and consent forms. */
const FORM_BODY_LIMIT_BYTES = 16 * 1024;

const logger = new Logger('AuthorizationServerHttp');

/**
 * Mounts the authorization server's HTTP edge on the host's Fastify instance, in encapsulated
 * plugins so nothing leaks into the other apps of the embedded host. Call it before `app.init()`.
 *
 * - `/oauth/*`: oidc-provider (authorization, token, JWKS, registration, revocation, introspection,
 *   discovery at `/oauth/.well-known/openid-configuration`). Its scope parses no body: the provider
 *   reads the raw request itself. The reply is hijacked and the request handed to the provider's
 *   Koa callback with the mount path stripped.
 * - `/.well-known/oauth-authorization-server/oauth` and `/.well-known/openid-configuration/oauth`:
 *   the same discovery document (RFC 8414 §3, S-157).
 * - `POST /oauth/reg`: dynamic client registration, after `RegistrationThrottle` counted it (429 beyond).
 * - `/oauth/interaction/:uid` (GET) and `…/login`, `…/confirm`, `…/abort` (POST, form-encoded):
 *   the sign-in and consent pages.
 */
export function configureAuthorizationServerHttp(app: NestFastifyApplication): void {
  const oauth = app.get(OAuthProviderService);
  const interactions = app.get(InteractionsService);
  const registrations = app.get(RegistrationThrottle);
  const fastify = app.getHttpAdapter().getInstance();
  void fastify.register(async (scope) => registerProviderRoutes(scope, oauth, registrations));
  void fastify.register(async (scope) => registerInteractionRoutes(scope, interactions));
}

async function registerProviderRoutes(scope: FastifyInstance, oauth: OAuthProviderService, registrations: RegistrationThrottle): Promise<void> {
  scope.removeAllContentTypeParsers();
  // Accept every body unread: oidc-provider parses (and limits) it itself.
  scope.addContentTypeParser('*', (_request, _payload, done) => done(null));

  const forward = (rewrite: (url: string) => string) => async (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    const raw = request.raw;
    try {
      oauth.pinToIssuer(raw);
      raw.url = rewrite(raw.url ?? '/');
      // oidc-provider builds its URLs from the mount path (`req.baseUrl`, as under Express): the issuer's path.
      (raw as typeof raw & { baseUrl?: string }).baseUrl = oauth.basePath();
      await oauth.handler()(raw, reply.raw);
    } catch (error) {
      logger.error(`the OAuth provider failed: ${(error as Error).stack ?? String(error)}`);
      sendPage(reply.raw, { kind: 'page', status: 503, html: renderMessagePage('Unavailable', 'The authorization server is not available right now.') });
    }
  };

  const stripMount = (url: string) => url.slice(OAUTH_MOUNT.length) || '/';
  // Dynamic client registration is open, and each client is stored: counted per client network first
  // (`request.ip`, through TRUST_PROXY as Fastify reads it), refused with 429 beyond the allowance.
  scope.post(`${OAUTH_MOUNT}/reg`, async (request, reply) => {
    const outcome = await registrations.take(request.ip);
    if (outcome.ok) return forward(stripMount)(request, reply);
    const seconds = Math.ceil(outcome.retryAfterMs / 1_000);
    return reply
      .code(429)
      .header('retry-after', String(seconds))
      .header('cache-control', 'no-store')
      .send({ error: 'temporarily_unavailable', error_description: `too many client registrations from this network; retry in ${seconds} seconds` });
  });
  scope.all(OAUTH_MOUNT, forward(stripMount));
  scope.all(`${OAUTH_MOUNT}/*`, forward(stripMount));
  for (const path of WELL_KNOWN_METADATA_PATHS) {
    scope.route({ method: ['GET', 'OPTIONS'], url: path, handler: forward(() => '/.well-known/openid-configuration') });
  }
}

async function registerInteractionRoutes(scope: FastifyInstance, interactions: InteractionsService): Promise<void> {
  // The host's adapter may parse forms already (Nest registers a parser by default); this scope uses its own, with a small limit.
  if (scope.hasContentTypeParser('application/x-www-form-urlencoded')) scope.removeContentTypeParser('application/x-www-form-urlencoded');
  await scope.register(formbody, { bodyLimit: FORM_BODY_LIMIT_BYTES });

  type Handler = (uid: string, form: InteractionForm, exchange: InteractionExchange) => Promise<InteractionOutcome>;
  const handle = (run: Handler) => async (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    const { uid } = request.params as { uid: string };
    const form = (request.body && typeof request.body === 'object' ? request.body : {}) as InteractionForm;
    try {
      const outcome = await run(uid, form, { req: request.raw, res: reply.raw, address: request.ip });
      if (outcome.kind === 'page') sendPage(reply.raw, outcome);
    } catch (error) {
      logger.error(`interaction ${uid} failed: ${(error as Error).stack ?? String(error)}`);
      if (!reply.raw.headersSent)
        sendPage(reply.raw, {
          kind: 'page',
          status: 500,
          html: renderMessagePage('Something went wrong', 'The sign-in could not continue. Start again from your application.'),
        });
      else reply.raw.end();
    }
  };

  const base = `${OAUTH_MOUNT}/interaction/:uid`;
  scope.get(
    base,
    handle((uid, _form, exchange) => interactions.show(uid, exchange)),
  );
  scope.post(
    `${base}/login`,
    handle((uid, form, exchange) => interactions.login(uid, form, exchange)),
  );
  scope.post(
    `${base}/confirm`,
    handle((uid, form, exchange) => interactions.confirm(uid, form, exchange)),
  );
  scope.post(
    `${base}/abort`,
    handle((uid, form, exchange) => interactions.abort(uid, form, exchange)),
  );
}

function sendPage(response: ServerResponse, outcome: Extract<InteractionOutcome, { kind: 'page' }>): void {
  response.writeHead(outcome.status, PAGE_HEADERS);
  response.end(outcome.html);
}
