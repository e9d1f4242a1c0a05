import { describe, expect, it } from 'vitest';
import { escapeHtml, renderAuthorizationErrorPage, renderConsentPage, renderMessagePage, renderSignInPage } from './pages';

const HOSTILE = `"><script>alert('x')</script>&`;

describe(escapeHtml, () => {
  it('escapes every character that can leave text or an attribute', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&\`=`)).toBe('&#60;a href&#61;&#34;x&#34; onclick&#61;&#39;y&#39;&#62;&#38;&#96;&#61;');
  });
});

describe(renderSignInPage, () => {
  const html = renderSignInPage({
    action: '/oauth/interaction/u1/login',
    abortAction: '/oauth/interaction/u1/abort',
    csrf: 'tok',
    clientName: HOSTILE,
    resourceLabel: HOSTILE,
    username: HOSTILE,
    error: HOSTILE,
  });

  it('has the form contract the e2e tests browser relies on (ids login, consent, deny; fields username, password, csrf)', () => {
    expect(html).toContain('<form id="login" method="post" action="/oauth/interaction/u1/login">');
    expect(html).toContain('<input type="hidden" name="csrf" value="tok">');
    expect(html).toMatch(/name="username"/);
    expect(html).toMatch(/<input type="password" id="password" name="password"/);
  });

  it('escapes everything the client or the user chose, and has no script', () => {
    expect(html).not.toContain('<script');
    expect(html).not.toContain(`"><`);
    expect(html).toContain('&#34;&#62;&#60;script&#62;');
  });
});

describe(renderConsentPage, () => {
  const model = {
    action: '/oauth/interaction/u2/confirm',
    denyAction: '/oauth/interaction/u2/abort',
    csrf: 'tok',
    clientName: HOSTILE,
    clientId: HOSTILE,
    redirectHost: '127.0.0.1:9999',
    localhostOnlyWarning: false,
    resourceLabel: '“Demo tools”, an MCP server of Demo',
    resourceUrl: 'https://mcp.example.com/demo/default/mcp',
    username: 'demo',
    granted: [
      { scope: 'mcp', description: 'Connect to this MCP server.' },
      { scope: HOSTILE, description: HOSTILE },
    ],
    refused: ['admin'],
  };

  it('has the consent and deny forms with the csrf token', () => {
    const html = renderConsentPage(model);
    expect(html).toContain('<form id="consent" method="post" action="/oauth/interaction/u2/confirm">');
    expect(html).toContain('<form id="deny" method="post" action="/oauth/interaction/u2/abort">');
    expect(html.match(/name="csrf" value="tok"/g)).toHaveLength(2);
  });

  it('shows the client, the redirect host, the server and the scopes, escaped (S-150, S-165)', () => {
    const html = renderConsentPage(model);
    expect(html).toContain('127.0.0.1:9999');
    expect(html).toContain('https://mcp.example.com/demo/default/mcp');
    expect(html).toContain('<code class="scope">mcp</code>');
    expect(html).toContain('<code>admin</code>');
    expect(html).not.toContain('<script');
  });

  it('names the server in people’s words and says what each scope lets the application do', () => {
    const html = renderConsentPage(model);
    expect(html.match(/“Demo tools”, an MCP server of Demo/g)).toHaveLength(2);
    expect(html).toContain('<li>Connect to this MCP server. <code class="scope">mcp</code></li>');
  });

  it('warns only when asked to', () => {
    expect(renderConsentPage(model)).not.toContain('class="warning"');
    expect(renderConsentPage({ ...model, localhostOnlyWarning: true })).toContain('class="warning"');
  });
});

describe(renderAuthorizationErrorPage, () => {
  it('tells the user of an unknown client what happened and how to make the application register again', () => {
    const html = renderAuthorizationErrorPage({ error: 'invalid_client', description: 'client is invalid', unknownClientId: HOSTILE });
    const text = html.replace(/<[^>]+>/g, ' ');
    expect(text).toContain('not registered here');
    expect(text).toMatch(/server was reset/);
    expect(text).toMatch(/remove the saved sign-in or registration for this server, then connect again/);
    expect(html).not.toContain('<script');
  });

  it('keeps the error code and description of any other refusal, with what to do', () => {
    const text = renderAuthorizationErrorPage({
      error: 'invalid_redirect_uri',
      description: "redirect_uri did not match any of the client's registered redirect_uris",
    }).replace(/<[^>]+>/g, ' ');
    expect(text).toContain('Sign-in could not start');
    expect(text).toContain('invalid_redirect_uri');
    expect(text).toContain('redirect_uri did not match');
    expect(text).toMatch(/Go back to the application and try again/);
  });
});

describe(renderMessagePage, () => {
  it('escapes the message', () => {
    expect(renderMessagePage('t', HOSTILE)).not.toContain('<script');
  });
});
