import { describe, expect, it } from 'vitest';
import { corsHeaders, preflightHeaders } from './cors';

describe(corsHeaders, () => {
  it('lets an allowed origin read the answer and the headers a client needs', () => {
    expect(corsHeaders('http://127.0.0.1:5173')).toEqual({
      vary: 'Origin',
      'access-control-allow-origin': 'http://127.0.0.1:5173',
      'access-control-expose-headers': 'mcp-session-id, www-authenticate, mcp-protocol-version, last-event-id',
    });
  });

  it('says only that the answer varies by origin otherwise', () => {
    expect(corsHeaders(undefined)).toEqual({ vary: 'Origin' });
  });
});

describe(preflightHeaders, () => {
  it('allows the endpoint’s methods, the MCP request headers and the Mcp-Param-* headers asked for', () => {
    const headers = preflightHeaders(true, 'Content-Type, Mcp-Param-Region, X-Other, mcp-param-bad name');
    expect(headers['access-control-allow-methods']).toBe('POST, GET, DELETE');
    expect(headers['access-control-allow-headers']?.split(', ')).toEqual([
      'authorization',
      'content-type',
      'accept',
      'mcp-session-id',
      'mcp-protocol-version',
      'last-event-id',
      'mcp-method',
      'mcp-name',
      'mcp-param-region',
    ]);
    expect(headers['access-control-max-age']).toBe('3600');
  });

  it('answers an OPTIONS without Origin with Allow only', () => {
    expect(preflightHeaders(false, undefined)).toEqual({ allow: 'POST, GET, DELETE, OPTIONS' });
  });
});
