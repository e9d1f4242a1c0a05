import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { parseScopes } from '@mcp-platform/protocol-mcp';
import { Clock } from '@mcp-platform/shared-clock';
import { AUTHORIZATION_SERVER_OPTIONS } from '../authorization-server.constants';
import type { ResolvedAuthorizationServerOptions } from '../authorization-server.options';
import { ClientMetadataService } from '../client-metadata/client-metadata.service';
import { ClientsService } from '../clients/clients.service';
import { isLoopbackUri } from '../clients/redirect-uri.policy';
import type { UserAccount } from '../identity/identity.types';
import { RolesService } from '../identity/roles/roles.service';
import { TenantsService } from '../identity/tenants/tenants.service';
import { UsersService } from '../identity/users/users.service';
import { AuthorizationPolicy } from '../oauth/authorization-policy.service';
import { OAuthProviderService, type OidcProvider } from '../oauth/oauth-provider.service';
import { csrfTokenFor, isValidCsrfToken, OAuthSecretsService } from '../oauth/oauth-secrets.service';
import { ResourceServersService, type ResourceTarget } from '../oauth/resource-servers.service';
import { describeScopes } from '../oauth/scope-descriptions';
import { renderAuthorizationErrorPage, renderConsentPage, renderMessagePage, renderSignInPage } from '../pages/pages';
import { SignInThrottle } from '../throttling/sign-in.throttle';
import { isKnownBrowser, knownBrowserCookie, knownBrowserCookieName } from './known-browser';
import { PasswordSignIn } from './password-sign-in';

/**
 * The browser's request and response, handed through to oidc-provider, whose interaction API reads
 * its cookies from the one and writes its redirect to the other; `address` is the client's IP.
 */
export interface InteractionExchange {
  req: IncomingMessage;
  res: ServerResponse;
  address: string;
}

/** What the HTTP layer does next: send a page, or nothing (the provider already answered with a redirect). */
export type InteractionOutcome = { kind: 'page'; status: number; html: string } | { kind: 'handled' };

/** The fields of the interaction forms (all optional: a forged or broken form may lack any). */
export interface InteractionForm {
  username?: unknown;
  password?: unknown;
  csrf?: unknown;
}

/** oidc-provider's OIDC scopes, granted outside the resource's scopes. */
const OIDC_SCOPES = new Set(['openid', 'offline_access']);

type Details = Awaited<ReturnType<OidcProvider['interactionDetails']>>;
type Client = NonNullable<Awaited<ReturnType<OidcProvider['Client']['find']>>>;

interface LoadedInteraction {
  provider: OidcProvider;
  details: Details;
  client: Client;
  resource: string;
  target: ResourceTarget;
  /** The resource in people's words (its title and its tenant's name), for both pages. */
  label: string;
}

/**
 * The sign-in and consent steps of the authorization code flow (S-150). oidc-provider sends the
 * browser to `<issuer path>/interaction/<uid>` with an interaction cookie that binds the flow to the
 * browser; every POST also carries the interaction's CSRF token (checked first: a wrong one changes
 * nothing). The tenant comes from the requested resource: only its users may sign in.
 */
@Injectable()
export class InteractionsService {
  private readonly logger = new Logger(InteractionsService.name);
  private readonly knownBrowser: { name: string; secure: boolean };

  constructor(
    @Inject(AUTHORIZATION_SERVER_OPTIONS) options: ResolvedAuthorizationServerOptions,
    private readonly oauth: OAuthProviderService,
    private readonly secrets: OAuthSecretsService,
    private readonly resources: ResourceServersService,
    private readonly policy: AuthorizationPolicy,
    private readonly users: UsersService,
    private readonly signIn: PasswordSignIn,
    private readonly documents: ClientMetadataService,
    private readonly clients: ClientsService,
    private readonly roles: RolesService,
    private readonly tenants: TenantsService,
    private readonly throttle: SignInThrottle,
    private readonly clock: Clock,
  ) {
    const secure = options.issuer.startsWith('https://');
    this.knownBrowser = { name: knownBrowserCookieName(secure), secure };
  }

  /** GET: the sign-in page, or the consent page once signed in. */
  async show(uid: string, exchange: InteractionExchange): Promise<InteractionOutcome> {
    const loaded = await this.load(uid, exchange);
    if ('kind' in loaded) return loaded;
    switch (loaded.details.prompt.name) {
      case 'login':
        return this.signInPage(loaded, 200);
      case 'consent':
        return this.consentPage(loaded, exchange);
      default:
        return message(400, 'Cannot continue', `This step (${loaded.details.prompt.name}) is not supported.`);
    }
  }

  /** POST login: checks the credentials (throttled) and the user's tenant, then resumes the flow. */
  async login(uid: string, form: InteractionForm, exchange: InteractionExchange): Promise<InteractionOutcome> {
    if (!(await this.csrfValid(uid, form))) return csrfRefused();
    const loaded = await this.load(uid, exchange);
    if ('kind' in loaded) return loaded;
    if (loaded.details.prompt.name !== 'login') return message(400, 'Cannot continue', 'You are signed in already; reload the page.');
    const username = typeof form.username === 'string' ? form.username.trim().slice(0, 256) : '';
    const password = typeof form.password === 'string' ? form.password.slice(0, 1024) : '';
    const { csrfKey } = await this.secrets.secrets();
    const cookieHeader = exchange.req.headers.cookie;
    const now = this.clock.now();
    const stamp = await this.users.credentialStamp(username);
    const knownBrowser = stamp !== undefined && isKnownBrowser(csrfKey, cookieHeader, this.knownBrowser.name, stamp, now);
    // The attempt is counted before the slow password check, so attempts racing on any replica cannot exceed the free ones.
    const reservation = await this.throttle.reserve(username, exchange.address, { knownBrowser });
    if (!reservation.ok) {
      this.logger.warn(`sign-in of "${username}" from ${exchange.address} refused: too many failed attempts`);
      return this.signInPage(loaded, 429, { username, error: `Too many failed attempts. Try again in ${Math.ceil(reservation.retryAfterMs / 1000)} seconds.` });
    }
    const user = await this.signIn.authenticate(username, password);
    if (!user) {
      this.logger.warn(`failed sign-in of "${username}" from ${exchange.address}`);
      return this.signInPage(loaded, 200, { username, error: 'Wrong username or password.' });
    }
    await this.throttle.succeeded(reservation);
    // This browser may sign in as this user while someone else's guesses pause the account, until its password changes.
    const signedInStamp = await this.users.credentialStamp(user.username);
    if (signedInStamp !== undefined) {
      exchange.res.setHeader(
        'set-cookie',
        knownBrowserCookie(csrfKey, cookieHeader, {
          name: this.knownBrowser.name,
          stamp: signedInStamp,
          secure: this.knownBrowser.secure,
          path: this.oauth.basePath() || '/',
          now,
        }),
      );
    }
    const problem = this.policy.signInProblem(user, loaded.target);
    if (problem) {
      this.logger.warn(`sign-in of "${user.username}" refused for ${loaded.resource}: ${problem}`);
      return this.signInPage(loaded, 403, { username, error: problem });
    }
    this.logger.log(`user ${user.username} signed in for client ${loaded.client.clientId}`);
    await loaded.provider.interactionFinished(exchange.req, exchange.res, { login: { accountId: user.id } }, { mergeWithLastSubmission: false });
    return { kind: 'handled' };
  }

  /** POST confirm: grants the scopes the policy allows and resumes the flow (S-150). */
  async confirm(uid: string, form: InteractionForm, exchange: InteractionExchange): Promise<InteractionOutcome> {
    if (!(await this.csrfValid(uid, form))) return csrfRefused();
    const loaded = await this.load(uid, exchange);
    if ('kind' in loaded) return loaded;
    const { provider, details, client, resource } = loaded;
    if (details.prompt.name !== 'consent') return message(400, 'Cannot continue', 'There is nothing to approve here; reload the page.');
    const user = await this.signedInUser(details);
    if (!user) return this.deny(loaded, exchange, 'the signed-in account no longer exists');
    const requested = parseScopes(stringParam(details.params['scope']));
    const decision = await this.policy.decide(
      user,
      resource,
      requested.filter((scope) => !OIDC_SCOPES.has(scope)),
      await this.ceiling(client),
    );
    if (!decision.ok) return this.deny(loaded, exchange, decision.reason);

    const grant =
      (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ?? new provider.Grant({ accountId: user.id, clientId: client.clientId });
    const oidcScopes = requested.filter((scope) => OIDC_SCOPES.has(scope));
    if (oidcScopes.length) grant.addOIDCScope(oidcScopes.join(' '));
    grant.addResourceScope(resource, decision.granted.join(' '));
    // Recording what was not granted keeps the provider from asking again for it (it counts granted + rejected).
    if (decision.refused.length) grant.rejectResourceScope(resource, decision.refused.join(' '));
    const grantId = await grant.save();
    this.logger.log(`user ${user.username} granted client ${client.clientId} "${decision.granted.join(' ')}" on ${resource}`);
    await provider.interactionFinished(exchange.req, exchange.res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    return { kind: 'handled' };
  }

  /** POST abort (deny or cancel): the client gets `access_denied`. */
  async abort(uid: string, form: InteractionForm, exchange: InteractionExchange): Promise<InteractionOutcome> {
    if (!(await this.csrfValid(uid, form))) return csrfRefused();
    const loaded = await this.load(uid, exchange);
    if ('kind' in loaded) return loaded;
    return this.deny(loaded, exchange, 'the user denied the request');
  }

  private async csrfValid(uid: string, form: InteractionForm): Promise<boolean> {
    return isValidCsrfToken((await this.secrets.secrets()).csrfKey, uid, form.csrf);
  }

  private async load(uid: string, exchange: InteractionExchange): Promise<LoadedInteraction | InteractionOutcome> {
    const provider = this.oauth.provider();
    this.oauth.pinToIssuer(exchange.req);
    let details: Details;
    try {
      details = await provider.interactionDetails(exchange.req, exchange.res);
    } catch (error) {
      if (error instanceof this.oauth.errors().SessionNotFound) {
        return message(400, 'Sign-in expired', 'This sign-in has expired or was started in another browser. Start again from your application.');
      }
      throw error;
    }
    if (details.uid !== uid)
      return message(400, 'Sign-in expired', 'This page does not belong to the sign-in in progress in this browser. Start again from your application.');
    const resource = details.params['resource'];
    const target = typeof resource === 'string' ? this.resources.parse(resource) : undefined;
    if (typeof resource !== 'string' || !target)
      return message(400, 'Cannot continue', 'The application must name exactly one server (the resource parameter).');
    let client: Client | undefined;
    try {
      client = await provider.Client.find(String(details.params['client_id']));
    } catch {
      client = undefined;
    }
    if (!client) {
      const clientId = String(details.params['client_id']);
      return {
        kind: 'page',
        status: 400,
        html: renderAuthorizationErrorPage({ error: 'invalid_client', description: 'client not found', unknownClientId: clientId }),
      };
    }
    return { provider, details, client, resource, target, label: await this.label(target) };
  }

  /**
   * `“Demo tools”, an MCP server of Demo`: the virtual server's title (its name when it has none) and
   * its tenant's name, the same words on the sign-in and the consent page.
   */
  private async label(target: ResourceTarget): Promise<string> {
    if (target.kind === 'admin') return 'the administration API of this platform';
    const [description, tenant] = await Promise.all([this.resources.describe(target.audience), this.tenants.find(target.tenant)]);
    return `“${description?.title ?? target.server}”, an MCP server of ${tenant?.name ?? target.tenant}`;
  }

  private async signInPage(loaded: LoadedInteraction, status: number, extra: { username?: string; error?: string } = {}): Promise<InteractionOutcome> {
    const base = `${this.oauth.basePath()}/interaction/${loaded.details.uid}`;
    return {
      kind: 'page',
      status,
      html: renderSignInPage({
        action: `${base}/login`,
        abortAction: `${base}/abort`,
        csrf: csrfTokenFor((await this.secrets.secrets()).csrfKey, loaded.details.uid),
        clientName: clientName(loaded.client),
        resourceLabel: loaded.label,
        ...extra,
      }),
    };
  }

  private async consentPage(loaded: LoadedInteraction, exchange: InteractionExchange): Promise<InteractionOutcome> {
    const { details, client, resource } = loaded;
    const user = await this.signedInUser(details);
    if (!user) return this.deny(loaded, exchange, 'the signed-in account no longer exists');
    const requested = parseScopes(stringParam(details.params['scope'])).filter((scope) => !OIDC_SCOPES.has(scope));
    const decision = await this.policy.decide(user, resource, requested, await this.ceiling(client));
    // A user of another tenant (or without the roles) gets access_denied with the reason, at once.
    if (!decision.ok) return this.deny(loaded, exchange, decision.reason);
    const redirectUris: string[] = client.redirectUris ?? [];
    const redirectUri = stringParam(details.params['redirect_uri']) ?? redirectUris[0] ?? '';
    const base = `${this.oauth.basePath()}/interaction/${details.uid}`;
    return {
      kind: 'page',
      status: 200,
      html: renderConsentPage({
        action: `${base}/confirm`,
        denyAction: `${base}/abort`,
        csrf: csrfTokenFor((await this.secrets.secrets()).csrfKey, details.uid),
        clientName: clientName(client),
        clientId: client.clientId,
        redirectHost: hostOf(redirectUri),
        // spec S-165: a URL-named client that can only receive answers on localhost could be anyone on this machine.
        localhostOnlyWarning: this.documents.isDocumentUrl(client.clientId) && redirectUris.length > 0 && redirectUris.every(isLoopbackUri),
        resourceLabel: loaded.label,
        resourceUrl: resource,
        username: user.username,
        granted: describeScopes(decision.granted, loaded.target.kind === 'mcp' ? await this.roles.scopeDescriptions(loaded.target.tenant) : undefined),
        refused: decision.refused,
      }),
    };
  }

  private async deny(loaded: LoadedInteraction, exchange: InteractionExchange, reason: string): Promise<InteractionOutcome> {
    this.logger.log(`authorization for client ${loaded.client.clientId} on ${loaded.resource} denied: ${reason}`);
    await loaded.provider.interactionFinished(
      exchange.req,
      exchange.res,
      { error: 'access_denied', error_description: reason },
      { mergeWithLastSubmission: false },
    );
    return { kind: 'handled' };
  }

  /** The scopes the client may obtain at most (`ClientsService.scopeCeiling`). */
  private ceiling(client: Client): Promise<string[] | undefined> {
    return this.clients.scopeCeiling(client);
  }

  private async signedInUser(details: Details): Promise<UserAccount | undefined> {
    const accountId = details.session?.accountId;
    if (!accountId || !(await this.users.isActive(accountId))) return undefined;
    return this.users.findById(accountId);
  }
}

function message(status: number, title: string, text: string): InteractionOutcome {
  return { kind: 'page', status, html: renderMessagePage(title, text) };
}

function csrfRefused(): InteractionOutcome {
  return message(403, 'Request refused', 'The form was not sent from this sign-in page (its security token is missing or wrong). Nothing was changed.');
}

function stringParam(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function clientName(client: Client): string {
  return typeof client.clientName === 'string' && client.clientName ? client.clientName : client.clientId;
}

function hostOf(uri: string): string {
  try {
    const url = new URL(uri);
    return url.host || `${url.protocol}${url.pathname}`;
  } catch {
    return uri;
  }
}
