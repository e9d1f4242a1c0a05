import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, IssuerMismatchError, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUIRED_SCOPES_META_KEY } from '@mcp-platform/protocol-mcp';
import {
  authorizationServerMetadataUrl,
  bearerChallenge,
  clientMetadataDocument,
  type ClientMetadataHost,
  type ClientRegistration,
  decodeJwt,
  findRepoRoot,
  LegacySdkOAuthProvider,
  ModernSdkOAuthProvider,
  POST_HEADERS,
  protectedResourceMetadataUrl,
  sendRaw,
  startClientMetadataHost,
  type TestUser,
  toolResultText,
} from '@mcp-platform/shared-testing';
import { AdminApi } from './admin-api';
import { connectLegacy, connectModern, type FetchRecorder, firstIndex, isUnauthorizedError, recordingFetch } from './oauth-flows';
import { adminUserOf, distributedMode, embeddedMode, type Platform, type PlatformMode, seededUrls } from './platforms';

/** Loopback redirect URIs (RFC 8252 §7.3): nothing listens there, the test's browser stops before them. */
const DCR_REDIRECT_URI = 'http://127.0.0.1:43117/callback';
const CIMD_REDIRECT_URI = 'http://127.0.0.1:43118/callback';
const SHA256_OF_ABC = createHash('sha256').update('abc').digest('hex');

function scopesOf(url: URL | undefined): string[] {
  return (url?.searchParams.get('scope') ?? '').split(' ').filter((scope) => scope !== '');
}

function audiences(claims: Record<string, unknown>): unknown[] {
  return [claims['aud']].flat();
}

function toolNames(result: { tools: { name: string }[] }): string[] {
  return result.tools.map((tool) => tool.name);
}

const modes: PlatformMode[] = [embeddedMode(), distributedMode(1)];

describe.each(modes)('OAuth with the official SDK clients, $name mode', (mode) => {
  let platform: Platform;
  let documents: ClientMetadataHost;
  let demoUrl: string;

  beforeAll(async () => {
    // The Client ID Metadata Document lives on an HTTPS host of the test's own; the platform trusts
    // its certificate and may fetch from 127.0.0.1 (S-164), which its SSRF guard refuses otherwise.
    documents = await startClientMetadataHost((url) => clientMetadataDocument(url, CIMD_REDIRECT_URI, 'e2e CIMD client'));
    platform = await mode.boot({ cimd: { allowedHosts: ['127.0.0.1'], caPem: documents.caPem, caFile: documents.caFile } });
    demoUrl = seededUrls(platform.baseUrl).demo;
  });

  afterAll(async () => {
    await platform?.stop();
    await documents?.close();
  });

  const dcr = (): ClientRegistration => ({ kind: 'dcr', redirectUri: DCR_REDIRECT_URI });
  const cimd = (): ClientRegistration => ({ kind: 'cimd', clientMetadataUrl: documents.url, redirectUri: CIMD_REDIRECT_URI });

  /** The discovery a client makes from the 401, in order: the metadata the challenge names, then the issuer's. */
  function expectDiscoveryFrom401(recorder: FetchRecorder): void {
    const refused = firstIndex(recorder, new RegExp(`^POST ${escapeRegExp(demoUrl)} 401$`));
    const resourceMetadata = firstIndex(recorder, `GET ${protectedResourceMetadataUrl(demoUrl)} 200`);
    const serverMetadata = firstIndex(recorder, `GET ${authorizationServerMetadataUrl(platform.issuer)} 200`);
    expect(refused, recorder.entries.join('\n')).toBeGreaterThanOrEqual(0);
    expect(resourceMetadata, recorder.entries.join('\n')).toBeGreaterThan(refused);
    expect(serverMetadata, recorder.entries.join('\n')).toBeGreaterThan(resourceMetadata);
  }

  /** What the authorization request and the token say for a client that completed the code flow. */
  function expectAuthorizedWithPkce(
    authorizationUrl: URL | undefined,
    callback: URL | undefined,
    accessToken: string | undefined,
    clientId: string | undefined,
  ): void {
    expect(authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl?.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // spec S-161: the resource indicator is the MCP URL.
    expect(authorizationUrl?.searchParams.get('resource')).toBe(demoUrl);
    expect(authorizationUrl?.searchParams.get('client_id')).toBe(clientId);
    expect(scopesOf(authorizationUrl)).toContain('mcp');
    // spec S-175: RFC 9207 iss in the authorization response.
    expect(callback?.searchParams.get('iss')).toBe(platform.issuer);
    const { header, payload } = decodeJwt(accessToken ?? '');
    expect(header).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    expect(payload).toMatchObject({ iss: platform.issuer, tenant: 'demo', client_id: clientId });
    expect(audiences(payload)).toEqual([demoUrl]);
    expect(String(payload['scope']).split(' ')).toContain('mcp');
  }

  it('answers an MCP request without a token with 401 and a Bearer challenge naming the resource metadata and scope', async () => {
    const answer = await sendRaw({
      url: demoUrl,
      headers: { ...POST_HEADERS },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    expect(answer.status).toBe(401);
    expect(bearerChallenge(answer)).toMatchObject({ resourceMetadata: protectedResourceMetadataUrl(demoUrl), scope: 'mcp' });
    const metadata = (await (await fetch(protectedResourceMetadataUrl(demoUrl))).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      resource: demoUrl,
      authorization_servers: [platform.issuer],
      scopes_supported: ['mcp'],
      bearer_methods_supported: ['header'],
    });
  });

  describe('legacy client (@modelcontextprotocol/sdk 1.x with an OAuthClientProvider)', () => {
    it('discovers from the 401, registers by DCR, signs in through the browser with PKCE, and calls a tool', async () => {
      const recorder = recordingFetch();
      const provider = new LegacySdkOAuthProvider({ user: platform.demoUser, registration: dcr() });
      const { client, transport } = await connectLegacy(demoUrl, provider, recorder.fetch);
      try {
        expectDiscoveryFrom401(recorder);
        const registration = firstIndex(recorder, /^POST \S+ 201$/);
        expect(registration, recorder.entries.join('\n')).toBeGreaterThan(firstIndex(recorder, `GET ${authorizationServerMetadataUrl(platform.issuer)}`));
        const clientId = provider.registeredClient?.client_id;
        expect(clientId).toEqual(expect.any(String));
        expectAuthorizedWithPkce(provider.authorizationUrls[0], provider.callbacks[0], provider.currentTokens?.access_token, clientId);

        // With `mcp` only, the tool that needs demo:crypto is listed all the same (the user's roles allow the
        // scope), marked with what a step-up gets (issue 13 item 13).
        const listed = await client.listTools();
        expect(toolNames(listed)).toContain('calculate');
        expect(listed.tools.find((tool) => tool.name === 'hash_text')?._meta).toEqual({ [REQUIRED_SCOPES_META_KEY]: ['demo:crypto'] });
        expect(listed.tools.find((tool) => tool.name === 'calculate')?._meta).toBeUndefined();
        const result = await client.callTool({ name: 'calculate', arguments: { expression: '6 * 7' } });
        expect(result.structuredContent).toEqual({ expression: '6 * 7', result: 42 });
      } finally {
        await transport.terminateSession().catch(() => undefined);
        await client.close();
      }
    });

    it('registers by Client ID Metadata Document: its https URL is the client_id and the authorization server fetches it', async () => {
      const recorder = recordingFetch();
      const provider = new LegacySdkOAuthProvider({ user: platform.demoUser, registration: cimd() });
      const { client, transport } = await connectLegacy(demoUrl, provider, recorder.fetch);
      try {
        expectDiscoveryFrom401(recorder);
        // No Dynamic Client Registration: the SDK used the URL because the metadata advertises CIMD (S-162).
        expect(recorder.entries.filter((entry) => / 201$/.test(entry))).toEqual([]);
        expect(provider.registeredClient?.client_id).toBe(documents.url);
        expect(documents.requests).toContain(new URL(documents.url).pathname);
        expectAuthorizedWithPkce(provider.authorizationUrls[0], provider.callbacks[0], provider.currentTokens?.access_token, documents.url);
        const result = await client.callTool({ name: 'calculate', arguments: { expression: '2 ^ 8' } });
        expect(result.structuredContent).toEqual({ expression: '2 ^ 8', result: 256 });
      } finally {
        await transport.terminateSession().catch(() => undefined);
        await client.close();
      }
    });

    it('refreshes by itself when its access token is refused, rotating the refresh token, and carries on', async () => {
      const recorder = recordingFetch();
      const provider = new LegacySdkOAuthProvider({ user: platform.demoUser, registration: dcr() });
      const { client, transport } = await connectLegacy(demoUrl, provider, recorder.fetch);
      try {
        const before = provider.currentTokens;
        expect(before?.refresh_token, 'the authorization server issued no refresh token').toEqual(expect.any(String));
        const authorizations = provider.authorizationUrls.length;
        const mark = recorder.entries.length;
        provider.invalidateAccessToken();

        const result = await client.callTool({ name: 'calculate', arguments: { expression: '1 + 1' } });
        expect(result.structuredContent).toEqual({ expression: '1 + 1', result: 2 });
        const after = provider.currentTokens;
        expect(after?.access_token).not.toBe(before?.access_token);
        // spec S-174: refresh tokens rotate.
        expect(after?.refresh_token).toEqual(expect.any(String));
        expect(after?.refresh_token).not.toBe(before?.refresh_token);
        expect(provider.authorizationUrls).toHaveLength(authorizations);
        expect(refusedThenRefreshed(recorder.entries.slice(mark)), recorder.entries.slice(mark).join('\n')).toBe(true);
      } finally {
        await transport.terminateSession().catch(() => undefined);
        await client.close();
      }
    });

    it('steps up on 403 insufficient_scope: re-authorizes with the challenged scope and the call succeeds', async () => {
      // SDK 1.x refreshes instead of re-authorizing when it holds a refresh token (the refresh cannot
      // widen the grant); a client keeping no refresh token shows its step-up path (see the provider).
      const provider = new LegacySdkOAuthProvider({ user: platform.demoUser, registration: dcr(), keepRefreshTokens: false });
      const recorder = recordingFetch();
      const { client, transport } = await connectLegacy(demoUrl, provider, recorder.fetch);
      try {
        expect(String(decodeJwt(provider.currentTokens?.access_token ?? '').payload['scope']).split(' ')).not.toContain('demo:crypto');
        // Issue 13 item 13: a client that calls only listed tools finds the one to step up for.
        expectListedForStepUp(await client.listTools());
        const refused: unknown = await client.callTool({ name: 'hash_text', arguments: { text: 'abc' } }).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(isUnauthorizedError(refused), String(refused)).toBe(true);
        expectStepUpChallenge(recorder);
        const stepUp = provider.authorizationUrls.at(-1);
        expect(provider.authorizationUrls).toHaveLength(2);
        expect(scopesOf(stepUp)).toEqual(expect.arrayContaining(['mcp', 'demo:crypto']));

        await transport.finishAuth(provider.takeAuthorizationCode());
        expect(String(decodeJwt(provider.currentTokens?.access_token ?? '').payload['scope']).split(' ')).toContain('demo:crypto');
        const result = await client.callTool({ name: 'hash_text', arguments: { text: 'abc' } });
        expect(result.structuredContent).toEqual({ algorithm: 'sha256', hex: SHA256_OF_ABC });
        expect(toolNames(await client.listTools())).toContain('hash_text');
      } finally {
        await transport.terminateSession().catch(() => undefined);
        await client.close();
      }
    });
  });

  describe('modern client (@modelcontextprotocol/client 2.x pinned to 2026-07-28, with an OAuthClientProvider)', () => {
    it('discovers from the 401, registers by DCR, signs in through the browser with PKCE, and calls a tool', async () => {
      const recorder = recordingFetch();
      const provider = new ModernSdkOAuthProvider({ user: platform.demoUser, registration: dcr() });
      const { client } = await connectModern(demoUrl, provider, recorder.fetch);
      try {
        expectDiscoveryFrom401(recorder);
        expect(firstIndex(recorder, /^POST \S+ 201$/), recorder.entries.join('\n')).toBeGreaterThan(-1);
        const clientId = provider.registeredClient?.client_id;
        expectAuthorizedWithPkce(provider.authorizationUrls[0], provider.callbacks[0], provider.currentTokens?.access_token, clientId);
        const result = await client.callTool({ name: 'calculate', arguments: { expression: '(2 + 3) * 7' } });
        expect(result.structuredContent).toEqual({ expression: '(2 + 3) * 7', result: 35 });
        expect(toolResultText(result)).not.toBe('');
      } finally {
        await client.close();
      }
    });

    it('registers by Client ID Metadata Document and calls a tool', async () => {
      const recorder = recordingFetch();
      const provider = new ModernSdkOAuthProvider({ user: platform.demoUser, registration: cimd() });
      const { client } = await connectModern(demoUrl, provider, recorder.fetch);
      try {
        expectDiscoveryFrom401(recorder);
        expect(recorder.entries.filter((entry) => / 201$/.test(entry))).toEqual([]);
        expect(provider.registeredClient?.client_id).toBe(documents.url);
        expectAuthorizedWithPkce(provider.authorizationUrls[0], provider.callbacks[0], provider.currentTokens?.access_token, documents.url);
        const result = await client.callTool({ name: 'calculate', arguments: { expression: '10 % 4' } });
        expect(result.structuredContent).toEqual({ expression: '10 % 4', result: 2 });
      } finally {
        await client.close();
      }
    });

    it('refreshes by itself when its access token is refused, rotating the refresh token, and carries on', async () => {
      const recorder = recordingFetch();
      const provider = new ModernSdkOAuthProvider({ user: platform.demoUser, registration: dcr() });
      const { client } = await connectModern(demoUrl, provider, recorder.fetch);
      try {
        const before = provider.currentTokens;
        expect(before?.refresh_token, 'the authorization server issued no refresh token').toEqual(expect.any(String));
        const authorizations = provider.authorizationUrls.length;
        const mark = recorder.entries.length;
        provider.invalidateAccessToken();

        const result = await client.callTool({ name: 'calculate', arguments: { expression: '3 * 3' } });
        expect(result.structuredContent).toEqual({ expression: '3 * 3', result: 9 });
        const after = provider.currentTokens;
        expect(after?.access_token).not.toBe(before?.access_token);
        expect(after?.refresh_token).toEqual(expect.any(String));
        expect(after?.refresh_token).not.toBe(before?.refresh_token);
        expect(provider.authorizationUrls).toHaveLength(authorizations);
        expect(refusedThenRefreshed(recorder.entries.slice(mark)), recorder.entries.slice(mark).join('\n')).toBe(true);
      } finally {
        await client.close();
      }
    });

    it('steps up on 403 insufficient_scope: re-authorizes with the union of scopes and the call succeeds', async () => {
      const provider = new ModernSdkOAuthProvider({ user: platform.demoUser, registration: dcr() });
      const recorder = recordingFetch();
      const { client, transport } = await connectModern(demoUrl, provider, recorder.fetch);
      try {
        const listed = await client.listTools();
        expectListedForStepUp(listed);
        // The list depends on the caller's authorization: never shareable between tokens (S-248, S-249).
        expect(listed).toMatchObject({ cacheScope: 'private' });
        const refused: unknown = await client.callTool({ name: 'hash_text', arguments: { text: 'abc' } }).then(
          () => undefined,
          (error: unknown) => error,
        );
        // SEP-2350: the wider scope cannot come from a refresh, so the client sends the user back to the authorization page.
        expect(isUnauthorizedError(refused), String(refused)).toBe(true);
        expectStepUpChallenge(recorder);
        expect(provider.authorizationUrls).toHaveLength(2);
        expect(scopesOf(provider.authorizationUrls.at(-1))).toEqual(expect.arrayContaining(['mcp', 'demo:crypto']));

        await transport.finishAuth(provider.takeCallbackParams());
        expect(String(decodeJwt(provider.currentTokens?.access_token ?? '').payload['scope']).split(' ')).toContain('demo:crypto');
        const result = await client.callTool({ name: 'hash_text', arguments: { text: 'abc' } });
        expect(result.structuredContent).toEqual({ algorithm: 'sha256', hex: SHA256_OF_ABC });
      } finally {
        await client.close();
      }
    });
  });

  describe("the README's modern-client snippet", () => {
    it('runs as printed, finishAuth with the callback included, and calls the tool', async () => {
      const provider = new ModernSdkOAuthProvider({ user: platform.demoUser, registration: dcr() });
      const printed: unknown[] = [];
      await runReadmeSnippet('**Modern client**', platform.baseUrl, { myOAuthProvider: provider, console: { log: (value: unknown) => printed.push(value) } });
      expect(printed).toEqual([expect.objectContaining({ structuredContent: { expression: '(2 + 3) * 7', result: 35 } })]);
      // spec S-175: the authorization response carried the issuer, which the SDK compared with the metadata's.
      expect(provider.callbacks[0]?.searchParams.get('iss')).toBe(platform.issuer);
    });

    it('is refused with IssuerMismatchError by finishAuth(code) alone: the server advertises RFC 9207 iss, so the SDK wants it', async () => {
      const provider = new ModernSdkOAuthProvider({ user: platform.demoUser, registration: dcr() });
      const transport = new StreamableHTTPClientTransport(new URL(demoUrl), { authProvider: provider });
      const refused: unknown = await new Client({ name: 'e2e', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
        .connect(transport)
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(UnauthorizedError.isInstance(refused), String(refused)).toBe(true);
      await expect(transport.finishAuth(provider.takeAuthorizationCode())).rejects.toBeInstanceOf(IssuerMismatchError);
    });
  });

  describe('a user whose roles cannot obtain demo:crypto (issue 13 item 13)', () => {
    const reader: TestUser = { username: `reader-${Math.random().toString(36).slice(2, 8)}`, password: 'reader-password-0123456' };

    beforeAll(async () => {
      const admin = await AdminApi.signIn(platform, adminUserOf(platform));
      await admin.expect([200, 201], 'PUT', '/tenants/demo/roles/reader', { description: 'Uses the demo server, no extra scope', scopes: ['mcp'] });
      await admin.expect(201, 'POST', '/tenants/demo/users', { ...reader, roles: ['reader'] });
    });

    it('does not see hash_text, with either SDK client', async () => {
      const legacy = await connectLegacy(demoUrl, new LegacySdkOAuthProvider({ user: reader, registration: dcr() }));
      try {
        const names = toolNames(await legacy.client.listTools());
        expect(names).toContain('calculate');
        expect(names).not.toContain('hash_text');
      } finally {
        await legacy.transport.terminateSession().catch(() => undefined);
        await legacy.client.close();
      }
      const modern = await connectModern(demoUrl, new ModernSdkOAuthProvider({ user: reader, registration: dcr() }));
      try {
        const names = toolNames(await modern.client.listTools());
        expect(names).toContain('calculate');
        expect(names).not.toContain('hash_text');
      } finally {
        await modern.client.close();
      }
    });
  });

  /** hash_text is listed to a token without demo:crypto, marked with the scope a step-up gets; tools needing nothing are not marked. */
  function expectListedForStepUp(listed: { tools: Array<{ name: string; _meta?: Record<string, unknown> }> }): void {
    expect(listed.tools.find((tool) => tool.name === 'hash_text')?._meta).toEqual({ [REQUIRED_SCOPES_META_KEY]: ['demo:crypto'] });
    expect(listed.tools.find((tool) => tool.name === 'calculate')?._meta).toBeUndefined();
  }

  /** The call of hash_text met one 403 whose Bearer challenge is insufficient_scope naming every scope the call needs (S-142, S-143). */
  function expectStepUpChallenge(recorder: FetchRecorder): void {
    expect(recorder.forbiddenChallenges, recorder.entries.join('\n')).toHaveLength(1);
    const challenge = bearerChallenge(recorder.forbiddenChallenges[0]);
    expect(challenge).toMatchObject({ error: 'insufficient_scope', resourceMetadata: protectedResourceMetadataUrl(demoUrl) });
    expect(challenge?.scope?.split(' ')).toEqual(expect.arrayContaining(['mcp', 'demo:crypto']));
  }

  /** The refused token's 401 at the MCP URL, then a token-endpoint POST, then the MCP request again, accepted. */
  function refusedThenRefreshed(entries: string[]): boolean {
    const refused = entries.findIndex((entry) => entry === `POST ${demoUrl} 401`);
    const refreshed = entries.findIndex((entry, index) => index > refused && entry.startsWith(`POST ${platform.issuer}/`) && entry.endsWith(' 200'));
    const retried = entries.findIndex((entry, index) => index > refreshed && entry.startsWith(`POST ${demoUrl} 20`));
    return refused >= 0 && refreshed > refused && retried > refreshed;
  }
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `AsyncFunction`, to run a code sample as the body of an async function. */
const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (...parameters: string[]) => (...values: unknown[]) => Promise<void>;

/**
 * Runs the README's TypeScript sample that follows the line starting with `marker`, exactly as printed,
 * against `baseUrl` instead of the default `http://127.0.0.1:3000`: its imports become the SDK's exports
 * of the same names, `globals` are the objects the README says the reader brings (their provider).
 */
async function runReadmeSnippet(marker: string, baseUrl: string, globals: Record<string, unknown>): Promise<void> {
  const readme = readFileSync(join(findRepoRoot(), 'README.md'), 'utf8');
  const after = readme.slice(readme.indexOf(`\n${marker}`));
  const block = /```ts\n([\s\S]*?)```/.exec(after)?.[1];
  if (block === undefined) throw new Error(`no ts sample after ${marker} in README.md`);
  const sdk: Record<string, unknown> = { Client, StreamableHTTPClientTransport, UnauthorizedError };
  const imported = [...block.matchAll(/^import \{([^}]+)\} from '@modelcontextprotocol\/client';$/gm)].flatMap((match) =>
    (match[1] ?? '').split(',').map((name) => name.trim()),
  );
  for (const name of imported) if (!(name in sdk)) throw new Error(`the sample imports ${name}, which this test does not provide`);
  const body = block.replace(/^import .*$/gm, '').replaceAll('http://127.0.0.1:3000', baseUrl);
  const names = [...imported, ...Object.keys(globals)];
  await new AsyncFunction(...names, body)(...imported.map((name) => sdk[name]), ...Object.values(globals));
}
