import { type OAuthBrowser, obtainToken, type TestUser } from '@mcp-platform/shared-testing';
import type { Platform } from './platforms';

/** One answer of the admin API: status, JSON body (or `undefined`), and the challenge header. */
export interface AdminAnswer {
  status: number;
  body: unknown;
  wwwAuthenticate: string | null;
}

/** The admin API's base URL and the audience of its tokens. */
export function adminApiUrl(platform: Platform): string {
  return `${platform.authUrl}/admin/v1`;
}

/** A caller of the admin REST API with a bearer token (or none, to test refusals). */
export class AdminApi {
  constructor(
    readonly baseUrl: string,
    private readonly accessToken: string | undefined,
  ) {}

  /** Signs `user` in through the browser flow for the admin API's audience with scope `admin`. */
  static async signIn(platform: Platform, user: TestUser, browser?: OAuthBrowser): Promise<AdminApi> {
    const token = await obtainToken({ issuer: platform.issuer, resource: adminApiUrl(platform), scope: 'admin', user, ...(browser ? { browser } : {}) });
    return new AdminApi(adminApiUrl(platform), token.access_token);
  }

  async request(method: string, path: string, body?: unknown): Promise<AdminAnswer> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.accessToken !== undefined) headers['authorization'] = `Bearer ${this.accessToken}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = text;
    }
    return { status: response.status, body: parsed, wwwAuthenticate: response.headers.get('www-authenticate') };
  }

  /**
   * A raw-body request (a resource's content): `body` sent as it is with `contentType`; the answer's
   * bytes and type besides its JSON (`body`, when it is JSON).
   */
  async requestBytes(
    method: string,
    path: string,
    body?: Uint8Array,
    contentType?: string,
  ): Promise<AdminAnswer & { bytes: Buffer; contentType: string | null }> {
    const headers: Record<string, string> = {};
    if (this.accessToken !== undefined) headers['authorization'] = `Bearer ${this.accessToken}`;
    if (contentType !== undefined) headers['content-type'] = contentType;
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body }), signal: AbortSignal.timeout(60_000) });
    const bytes = Buffer.from(await response.arrayBuffer());
    const type = response.headers.get('content-type');
    const json = type?.startsWith('application/json') ? (JSON.parse(bytes.toString('utf8')) as unknown) : undefined;
    return { status: response.status, body: json, wwwAuthenticate: response.headers.get('www-authenticate'), bytes, contentType: type };
  }

  /** Like `request`, but throws unless the status is one of `expected` (the setup steps of a test). */
  async expect(expected: number | readonly number[], method: string, path: string, body?: unknown): Promise<AdminAnswer> {
    const answer = await this.request(method, path, body);
    const allowed = typeof expected === 'number' ? [expected] : expected;
    if (!allowed.includes(answer.status)) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer;
  }
}

/** A built-in tool definition for the admin API: the demo calculator's handler under another name. */
export function calculatorTool(title = 'Calculator (e2e)'): Record<string, unknown> {
  return {
    title,
    description: 'Evaluates an arithmetic expression.',
    inputSchema: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'], additionalProperties: false },
    kind: 'builtin',
    config: { handler: 'demo.calculate' },
  };
}

/** A built-in tool that generates UUIDs, for a second, distinct tool. */
export function uuidTool(): Record<string, unknown> {
  return {
    title: 'UUIDs (e2e)',
    inputSchema: { type: 'object', properties: { count: { type: 'integer', minimum: 1, maximum: 10 } }, additionalProperties: false },
    kind: 'builtin',
    config: { handler: 'demo.generate_uuid' },
  };
}

/** A tenant slug unique to this run (tenants outlive nothing: each platform has its own database). */
export function uniqueTenant(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
}

/** The virtual server `createPublicTenant` creates in its tenant. */
export const PUBLIC_SERVER = 'main';

/** The definition of the public server `main` exposing `tools` (anonymous MCP callers allowed). */
export function publicServer(tools: string[] = []): Record<string, unknown> {
  return { title: PUBLIC_SERVER, public: true, tools };
}

/**
 * Creates `tenant` with the public virtual server `main` and no tools, so a test needs no token for
 * its MCP calls and leaves the seeded tenants untouched.
 */
export async function createPublicTenant(admin: AdminApi, tenant: string, name: string): Promise<void> {
  await admin.expect(201, 'POST', '/tenants', { slug: tenant, name });
  await admin.expect(200, 'PUT', `/tenants/${tenant}/virtual-servers/${PUBLIC_SERVER}`, publicServer());
}

/** The admin API path of one resource of `tenant`: a URI holds slashes, so it goes in the `uri` query parameter. */
export function resourcePath(tenant: string, uri: string): string {
  return `/tenants/${tenant}/resources/by-uri?uri=${encodeURIComponent(uri)}`;
}
