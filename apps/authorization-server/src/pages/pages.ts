/**
 * The sign-in and consent pages: server-rendered HTML without JavaScript, every value escaped.
 * The form contract is fixed, end-to-end tests rely on it: `form#login` (inputs `username`,
 * `password`, hidden `csrf`), `form#consent` and `form#deny` (hidden `csrf`), absolute-path actions.
 */

/**
 * Headers of every page (S-150): no framing (both headers, for old and new browsers), nothing but inline
 * styles, no caching of a page that carries a CSRF token. `form-action` is not restricted: the flow
 * ends in a redirect to the client's redirect URI, which some browsers check against it.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  pragma: 'no-cache',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`=]/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** What the sign-in page shows. */
export interface SignInPageModel {
  /** The form's action, an absolute path. */
  action: string;
  /** The action of the cancel form. */
  abortAction: string;
  csrf: string;
  clientName: string;
  /** The resource in people's words: `“Demo tools”, an MCP server of Demo`, or the administration API. */
  resourceLabel: string;
  /** The username typed before (after a failed attempt). */
  username?: string;
  /** Why the previous attempt failed. */
  error?: string;
}

/** What the consent page shows (S-150, S-165). */
export interface ConsentPageModel {
  action: string;
  denyAction: string;
  csrf: string;
  clientName: string;
  clientId: string;
  /** The host the browser goes to afterwards (S-165: always shown). */
  redirectHost: string;
  /** A Client ID Metadata Document client whose every redirect URI is on localhost (S-165: warn). */
  localhostOnlyWarning: boolean;
  resourceLabel: string;
  resourceUrl: string;
  username: string;
  /** The scopes that will be granted, each with what it lets the application do. */
  granted: Array<{ scope: string; description: string }>;
  /** Asked for, but not granted (unknown to the server, or not allowed for this user). */
  refused: string[];
}

const STYLE = `
  body { font-family: system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem; color: #1d232a; }
  h1 { font-size: 1.4rem; }
  label { display: block; margin-top: 1rem; }
  input[type=text], input[type=password] { width: 100%; padding: .5rem; box-sizing: border-box; }
  button { margin-top: 1.2rem; padding: .5rem 1.2rem; }
  .error { color: #a30000; border-left: 3px solid #a30000; padding-left: .6rem; }
  .warning { background: #fff4d6; border: 1px solid #e5b000; padding: .6rem; }
  code { word-break: break-all; }
  .actions { display: flex; gap: 1rem; }
  .scope { color: #555; font-size: .85rem; }
`;

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** The sign-in page: `form#login` posting `username`, `password` and `csrf`. */
export function renderSignInPage(model: SignInPageModel): string {
  const error = model.error ? `<p class="error" role="alert">${escapeHtml(model.error)}</p>\n` : '';
  return page(
    'Sign in',
    `<h1>Sign in</h1>
<p><strong>${escapeHtml(model.clientName)}</strong> wants to use ${escapeHtml(model.resourceLabel)} on your behalf.</p>
<p>Sign in with your account for it.</p>
${error}<form id="login" method="post" action="${escapeHtml(model.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(model.csrf)}">
<label for="username">Username</label>
<input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" required autofocus value="${escapeHtml(model.username ?? '')}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<form id="abort" method="post" action="${escapeHtml(model.abortAction)}">
<input type="hidden" name="csrf" value="${escapeHtml(model.csrf)}">
<button type="submit">Cancel</button>
</form>`,
  );
}

/** The consent page: `form#consent` approves, `form#deny` refuses, both with `csrf`. */
export function renderConsentPage(model: ConsentPageModel): string {
  const scopes = model.granted
    .map(({ scope, description }) => `<li>${escapeHtml(description)} <code class="scope">${escapeHtml(scope)}</code></li>`)
    .join('\n');
  const refused = model.refused.length
    ? `<p>Also asked for, and <strong>not</strong> granted: ${model.refused.map((scope) => `<code>${escapeHtml(scope)}</code>`).join(', ')}.</p>\n`
    : '';
  const warning = model.localhostOnlyWarning
    ? `<p class="warning" role="alert">This application described itself through its web address, but it only accepts answers on <strong>this computer</strong> (localhost). Any program on this computer could claim to be it. Continue only if you started this application yourself just now.</p>\n`
    : '';
  return page(
    'Allow access?',
    `<h1>Allow access?</h1>
<p><strong>${escapeHtml(model.clientName)}</strong> wants to use ${escapeHtml(model.resourceLabel)} as <strong>${escapeHtml(model.username)}</strong>.</p>
${warning}<dl>
<dt>Application</dt><dd>${escapeHtml(model.clientName)} (client id <code>${escapeHtml(model.clientId)}</code>)</dd>
<dt>You will be sent to</dt><dd><code>${escapeHtml(model.redirectHost)}</code></dd>
<dt>Server</dt><dd>${escapeHtml(model.resourceLabel)}<br><code>${escapeHtml(model.resourceUrl)}</code></dd>
<dt>It will be allowed to</dt><dd><ul>
${scopes}
</ul></dd>
</dl>
${refused}<div class="actions">
<form id="consent" method="post" action="${escapeHtml(model.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(model.csrf)}">
<button type="submit">Allow</button>
</form>
<form id="deny" method="post" action="${escapeHtml(model.denyAction)}">
<input type="hidden" name="csrf" value="${escapeHtml(model.csrf)}">
<button type="submit">Deny</button>
</form>
</div>`,
  );
}

/** A page with a title and one message (errors, expired flows). */
export function renderMessagePage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`);
}

/** Why an authorization request could not start, as the authorization endpoint's error page shows it. */
export interface AuthorizationErrorModel {
  /** The OAuth error code (`invalid_request`, `invalid_client`, ...). */
  error: string;
  description?: string;
  /** Set when the request named a client id this server does not know (any more). */
  unknownClientId?: string;
}

/**
 * The page of an authorization request that cannot even be answered to its application (an unknown
 * client, a redirect URI that does not match): what happened and what to do, then the technical
 * details. An unknown client is nearly always a desktop application holding a registration from
 * before this server was reset, so the page says how to make it register again.
 */
export function renderAuthorizationErrorPage(model: AuthorizationErrorModel): string {
  const details = `<p class="scope">Details for whoever runs the application: <code>${escapeHtml(model.error)}</code>${
    model.description ? ` — ${escapeHtml(model.description)}` : ''
  }</p>`;
  if (model.unknownClientId !== undefined) {
    return page(
      'Application not registered here',
      `<h1>This application is not registered here</h1>
<p>The application that sent you here used a registration (client id <code>${escapeHtml(model.unknownClientId)}</code>) that this server does not know. This usually means the server was reset or reinstalled after the application registered with it, or an administrator removed the registration. Nothing was shared with the application.</p>
<p><strong>What to do:</strong> in the application, remove the saved sign-in or registration for this server, then connect again: the application registers anew and brings you back here to sign in. (In MCP Inspector: clear its OAuth state, then connect. In other clients: remove this server and add it again.)</p>
${details}`,
    );
  }
  return page(
    'Sign-in could not start',
    `<h1>Sign-in could not start</h1>
<p>The application's sign-in request was refused, so you cannot sign in from it right now. Go back to the application and try again; if this keeps happening, the application or its configuration for this server needs fixing: tell whoever runs it what follows.</p>
${details}`,
  );
}
