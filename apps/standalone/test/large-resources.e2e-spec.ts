import { randomBytes } from 'node:crypto';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpUrl, MODERN_PROTOCOL_VERSION, obtainToken } from '@mcp-platform/shared-testing';
import { AdminApi, adminApiUrl, createPublicTenant, PUBLIC_SERVER, resourcePath, uniqueTenant } from './admin-api';
import { adminUserOf, distributedMode, embeddedMode, type Platform } from './platforms';

/**
 * A resource ten times larger than one NATS message (1 MiB by default): uploaded through the admin
 * API as raw bytes (sent on to the resource store in chunks), read back through MCP (the broker joins
 * the store's chunks into one answer), in both modes, with both SDK eras.
 */

const CONTENT = randomBytes(5 * 1024 * 1024);
const URI = 'e2e://large/archive.bin';
const MIME_TYPE = 'application/octet-stream';

/** What both SDK clients offer for a read (their own types differ in detail). */
interface Reader {
  readResource(params: { uri: string }): Promise<{ contents: Array<{ uri: string; mimeType?: string; text?: string; blob?: string }> }>;
}

const eras: Array<{ name: 'legacy' | 'modern'; connect(url: string): Promise<{ client: Reader; close: () => Promise<void> }> }> = [
  {
    name: 'legacy',
    connect: async (url) => {
      const client = new LegacyClient({ name: 'e2e-legacy', version: '1.0.0' });
      const transport = new LegacyTransport(new URL(url));
      await client.connect(transport);
      return { client, close: async () => (await transport.terminateSession().catch(() => undefined), await client.close()) };
    },
  },
  {
    name: 'modern',
    connect: async (url) => {
      const client = new ModernClient({ name: 'e2e-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } });
      await client.connect(new ModernTransport(new URL(url)));
      return { client, close: () => client.close() };
    },
  },
];

describe.each([embeddedMode(), distributedMode()])('large resources, $name mode', (mode) => {
  let platform: Platform;
  let admin: AdminApi;
  let serverUrl: string;
  const tenant = uniqueTenant('e2e-large');
  const contentPath = (uri: string, query = '') => `/tenants/${tenant}/resources/by-uri/content?uri=${encodeURIComponent(uri)}${query}`;

  beforeAll(async () => {
    platform = await mode.boot();
    serverUrl = mcpUrl(platform.baseUrl, tenant, PUBLIC_SERVER);
    const token = await obtainToken({ issuer: platform.issuer, resource: adminApiUrl(platform), scope: 'admin', user: adminUserOf(platform) });
    admin = new AdminApi(adminApiUrl(platform), token.access_token);
    await createPublicTenant(admin, tenant, 'Large resources (e2e)');
  });

  afterAll(async () => {
    await platform?.stop();
  });

  it('uploads a 5 MiB binary as raw bytes through the admin API and serves it byte-identical to both SDK clients', async () => {
    const upload = await admin.requestBytes('PUT', contentPath(URI, '&name=archive&title=A%20large%20archive'), CONTENT, MIME_TYPE);
    expect(upload.status, JSON.stringify(upload.body)).toBe(200);
    expect(upload.body).toEqual({
      created: true,
      resource: { uri: URI, name: 'archive', title: 'A large archive', mimeType: MIME_TYPE, servers: [], size: CONTENT.length },
    });

    // The JSON view has no room for it (one NATS message): it names the size and leaves the content out.
    const view = await admin.expect(200, 'GET', resourcePath(tenant, URI));
    expect(view.body).toEqual({ uri: URI, name: 'archive', title: 'A large archive', mimeType: MIME_TYPE, servers: [], size: CONTENT.length });
    const download = await admin.requestBytes('GET', contentPath(URI));
    expect(download.status).toBe(200);
    expect(download.contentType).toBe(MIME_TYPE);
    expect(download.bytes.equals(CONTENT)).toBe(true);

    for (const era of eras) {
      const { client, close } = await era.connect(serverUrl);
      try {
        const { contents } = await client.readResource({ uri: URI });
        expect(
          contents.map(({ uri, mimeType }) => ({ uri, mimeType })),
          era.name,
        ).toEqual([{ uri: URI, mimeType: MIME_TYPE }]);
        expect(contents[0]?.text, era.name).toBeUndefined();
        expect(Buffer.from(contents[0]?.blob ?? '', 'base64').equals(CONTENT), `${era.name}: the blob is the uploaded bytes`).toBe(true);
      } finally {
        await close();
      }
    }
  });
});
