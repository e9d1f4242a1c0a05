import { describe, expect, it } from 'vitest';
import { acceptsBoth, acceptsMedia, EdgePolicy } from './edge-policy';

const policy = new EdgePolicy(['127.0.0.1:3000', 'localhost:*', '[::1]:3000', 'mcp.example.com'], ['http://127.0.0.1:3000', 'http://localhost:*']);

describe('EdgePolicy', () => {
  describe('isHostAllowed', () => {
    it('accepts listed hosts, any port where the entry says *', () => {
      expect(policy.isHostAllowed('127.0.0.1:3000')).toBe(true);
      expect(policy.isHostAllowed('LOCALHOST:4567')).toBe(true);
      expect(policy.isHostAllowed('[::1]:3000')).toBe(true);
      expect(policy.isHostAllowed('mcp.example.com')).toBe(true);
    });

    it('refuses other hosts, other ports and a missing Host (DNS rebinding)', () => {
      expect(policy.isHostAllowed('evil.example.com')).toBe(false);
      expect(policy.isHostAllowed('127.0.0.1:3001')).toBe(false);
      expect(policy.isHostAllowed('mcp.example.com:8443')).toBe(false);
      expect(policy.isHostAllowed(undefined)).toBe(false);
    });
  });

  describe('isOriginAllowed', () => {
    it('accepts no Origin and listed origins', () => {
      expect(policy.isOriginAllowed(undefined)).toBe(true);
      expect(policy.isOriginAllowed('http://127.0.0.1:3000')).toBe(true);
      expect(policy.isOriginAllowed('http://localhost:9999')).toBe(true);
    });

    it('refuses unlisted and opaque origins', () => {
      expect(policy.isOriginAllowed('http://evil.example.com')).toBe(false);
      expect(policy.isOriginAllowed('https://127.0.0.1:3000')).toBe(false);
      expect(policy.isOriginAllowed('null')).toBe(false);
    });
  });

  describe('check', () => {
    const headers = { host: '127.0.0.1:3000', accept: 'application/json, text/event-stream' };

    it('passes a well-formed POST', () => {
      expect(policy.check('POST', headers)).toBeUndefined();
    });

    it('answers 403 before 406', () => {
      expect(policy.check('POST', { host: 'evil.example.com', accept: 'text/html' })?.status).toBe(403);
      expect(policy.check('POST', { ...headers, origin: 'http://evil.example.com' })?.status).toBe(403);
    });

    it('answers 406 when a POST does not accept both modes, or a GET not SSE', () => {
      expect(policy.check('POST', { ...headers, accept: 'application/json' })?.status).toBe(406);
      expect(policy.check('GET', { ...headers, accept: 'application/json' })?.status).toBe(406);
      expect(policy.check('GET', { ...headers, accept: 'text/event-stream' })).toBeUndefined();
    });
  });
});

describe('acceptsMedia', () => {
  it('honours wildcards and q=0', () => {
    expect(acceptsBoth('*/*')).toBe(true);
    expect(acceptsMedia('text/*', 'text', 'event-stream')).toBe(true);
    expect(acceptsMedia('text/event-stream;q=0, application/json', 'text', 'event-stream')).toBe(false);
    expect(acceptsMedia(undefined, 'text', 'event-stream')).toBe(false);
  });
});
