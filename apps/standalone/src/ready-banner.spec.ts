import { describe, expect, it } from 'vitest';
import { readyBanner, virtualServerUrl } from './ready-banner';

describe('virtualServerUrl', () => {
  it('joins the public URL, tenant and server with /mcp when the public URL has a trailing slash', () => {
    expect(virtualServerUrl('http://127.0.0.1:3000/', { tenant: 'demo', name: 'default' })).toBe('http://127.0.0.1:3000/demo/default/mcp');
  });

  it('keeps a path prefix of the public URL and escapes names', () => {
    expect(virtualServerUrl('https://mcp.example.test/platform', { tenant: 'a b', name: 'x/y' })).toBe('https://mcp.example.test/platform/a%20b/x%2Fy/mcp');
  });
});

describe('readyBanner', () => {
  it('lists every server URL, aligned, and says how to stop', () => {
    const banner = readyBanner({
      mode: 'embedded',
      url: 'http://127.0.0.1:3000',
      pid: 42,
      servers: [
        { tenant: 'conformance', name: 'default', url: 'http://127.0.0.1:3000/conformance/default/mcp' },
        { tenant: 'demo', name: 'default', url: 'http://127.0.0.1:3000/demo/default/mcp' },
      ],
    });
    expect(banner).toContain('MCP platform (embedded) is ready at http://127.0.0.1:3000');
    expect(banner).toContain('  conformance/default  http://127.0.0.1:3000/conformance/default/mcp');
    expect(banner).toContain('  demo/default         http://127.0.0.1:3000/demo/default/mcp');
    expect(banner).toContain('Data: in memory');
    expect(banner).toContain('kill -TERM 42');
  });

  it('says so when there is no virtual server and names the data directory', () => {
    const banner = readyBanner({ mode: 'embedded', url: 'http://127.0.0.1:3000', pid: 1, servers: [], dataDir: '/srv/data' });
    expect(banner).toContain('No virtual servers yet.');
    expect(banner).toContain('Data directory: /srv/data');
  });
});
