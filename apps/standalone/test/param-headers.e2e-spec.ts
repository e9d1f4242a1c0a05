import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCodes, mcpUrl, modernHeaders, modernMeta, openLegacySession, responseMessage, sendRaw } from '@mcp-platform/shared-testing';
import { AdminApi, createPublicTenant, PUBLIC_SERVER, publicServer, uniqueTenant } from './admin-api';
import { adminUserOf, distributedMode, embeddedMode, type Platform, type PlatformMode, seededUrls } from './platforms';

const TOOL = 'test_custom_headers';
/** What the suite sends besides the string under test: the other required arguments and their headers. */
const DEFAULTS = { priority: 0, query: 'test-default' };
const DEFAULT_HEADERS = { 'mcp-param-priority': '0' };

let nextId = 1;

/** A modern `tools/call` over raw HTTP, with the `Mcp-Param-*` headers given (and no others). */
async function modernCall(url: string, name: string, args: Record<string, unknown>, paramHeaders: Record<string, string>) {
  const answer = await sendRaw({
    url,
    headers: { ...modernHeaders('tools/call', name), ...paramHeaders },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args, _meta: modernMeta() } }),
  });
  return { status: answer.status, message: responseMessage(answer), body: answer.body };
}

const modes: PlatformMode[] = [embeddedMode(), distributedMode(1)];

/**
 * SEP-2243 (issue 14 §2.2): on the stateless wire a tool's `x-mcp-header` arguments travel also as
 * `Mcp-Param-<Name>` headers, which must agree with the body (S-116, 400 + -32020 otherwise); the
 * 2025 sessions are not checked; the admin API refuses declarations that break the rules (S-117).
 */
describe.each(modes)('Mcp-Param-* headers, $name mode', (mode) => {
  let platform: Platform;
  let url: string;

  beforeAll(async () => {
    platform = await mode.boot();
    url = seededUrls(platform.baseUrl).conformance;
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it('lists test_custom_headers with its x-mcp-header declarations', async () => {
    const answer = await sendRaw({
      url,
      headers: modernHeaders('tools/list'),
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/list', params: { _meta: modernMeta() } }),
    });
    const tools =
      (responseMessage(answer)?.result as { tools?: Array<{ name: string; inputSchema: { properties?: Record<string, unknown> } }> } | undefined)?.tools ?? [];
    const tool = tools.find((candidate) => candidate.name === TOOL);
    expect(tool?.inputSchema.properties).toMatchObject({
      region: { type: 'string', 'x-mcp-header': 'Region' },
      priority: { type: 'integer', 'x-mcp-header': 'Priority' },
      verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
    });
  });

  it.each([
    ['the Base64 form of the value', 'Hello', '=?base64?SGVsbG8=?='],
    ['a literal that looks like Base64', 'SGVsbG8=', 'SGVsbG8='],
    ['a literal with the prefix but no suffix', '=?base64?SGVsbG8=', '=?base64?SGVsbG8='],
    ['a plain value with whitespace around it', 'us-west1', '  us-west1 '],
  ])('accepts %s', async (_case, region, header) => {
    const answer = await modernCall(url, TOOL, { ...DEFAULTS, region }, { ...DEFAULT_HEADERS, 'mcp-param-region': header });
    expect(answer.status, answer.body).toBe(200);
    expect(answer.message?.result).toMatchObject({ content: [{ type: 'text', text: `Received: ${JSON.stringify({ ...DEFAULTS, region })}` }] });
  });

  it.each([
    ['Base64 with bad padding', 'Hello', { 'mcp-param-region': '=?base64?SGVsbG8?=' }, /Mcp-Param-Region header is malformed/],
    ['Base64 with characters outside the alphabet', 'Hello', { 'mcp-param-region': '=?base64?SGVs!!!bG8=?=' }, /Mcp-Param-Region header is malformed/],
    ['a value unlike the argument', 'Hello', { 'mcp-param-region': 'Goodbye' }, /Mcp-Param-Region header does not match/],
    ['a missing header for an argument with a value', 'test-value', {}, /Mcp-Param-Region header is required/],
    ['a header for an argument the body lacks', 'Hello', { 'mcp-param-region': 'Hello', 'mcp-param-verbose': 'true' }, /Mcp-Param-Verbose header is present/],
  ])('refuses %s with 400 and -32020 naming the header', async (_case, region, headers, message) => {
    const answer = await modernCall(url, TOOL, { ...DEFAULTS, region }, { ...DEFAULT_HEADERS, ...headers });
    expect(answer.status, answer.body).toBe(400);
    expect(answer.message?.error).toMatchObject({ code: ErrorCodes.HeaderMismatch, message: expect.stringMatching(message) });
  });

  it('does not check a 2025 session’s call, whatever its headers', async () => {
    const session = await openLegacySession(url);
    const call = async (headers: Record<string, string>) => {
      const answer = await sendRaw({
        url,
        headers: { ...session.headers, ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: TOOL, arguments: { ...DEFAULTS, region: 'Hello' } } }),
      });
      return { status: answer.status, message: responseMessage(answer) };
    };
    const variants: Record<string, string>[] = [{}, { 'mcp-param-region': 'Goodbye' }, { 'mcp-param-region': '=?base64?SGVsbG8?=' }];
    for (const headers of variants) {
      const answer = await call(headers);
      expect(answer.status).toBe(200);
      expect(answer.message?.result).toMatchObject({ content: [{ type: 'text', text: expect.stringContaining('"region":"Hello"') }] });
    }
  });

  it('refuses, through the admin API, a tool whose x-mcp-header declarations break the rules (400), and serves a valid one', async () => {
    const admin = await AdminApi.signIn(platform, adminUserOf(platform));
    const tenant = uniqueTenant('e2e-hdr');
    await createPublicTenant(admin, tenant, 'Param headers (e2e)');
    const definition = (properties: Record<string, unknown>) => ({
      title: 'Echo (e2e)',
      inputSchema: { type: 'object', properties },
      kind: 'builtin',
      config: { handler: 'conformance.json_schema_2020_12_tool' },
    });
    for (const properties of [
      { where: { type: 'object', 'x-mcp-header': 'Where' } },
      { tags: { type: 'array', items: { type: 'string' }, 'x-mcp-header': 'Tags' } },
      { a: { type: 'string', 'x-mcp-header': '' } },
      { a: { type: 'string', 'x-mcp-header': 'Not A Token' } },
      { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'REGION' } },
    ]) {
      const refused = await admin.request('PUT', `/tenants/${tenant}/tools/echo`, definition(properties));
      expect(refused.status, JSON.stringify(properties)).toBe(400);
      expect(JSON.stringify(refused.body)).toContain('x-mcp-header');
    }
    expect((await admin.request('GET', `/tenants/${tenant}/tools/echo`)).status).toBe(404);

    await admin.expect([200, 201], 'PUT', `/tenants/${tenant}/tools/echo`, definition({ zone: { type: 'string', 'x-mcp-header': 'Zone' } }));
    await admin.expect(200, 'PUT', `/tenants/${tenant}/virtual-servers/${PUBLIC_SERVER}`, publicServer(['echo']));
    const tenantUrl = mcpUrl(platform.baseUrl, tenant, PUBLIC_SERVER);
    const accepted = await modernCall(tenantUrl, 'echo', { zone: 'b' }, { 'mcp-param-zone': 'b' });
    expect(accepted.status, accepted.body).toBe(200);
    const refused = await modernCall(tenantUrl, 'echo', { zone: 'b' }, {});
    expect(refused.status, refused.body).toBe(400);
    expect(refused.message?.error).toMatchObject({ code: ErrorCodes.HeaderMismatch, message: expect.stringContaining('Mcp-Param-Zone') });
  });
});
