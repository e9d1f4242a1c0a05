import { describe, expect, it } from 'vitest';
import { detectEra } from './era';

const modernMeta = { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } };

describe('detectEra', () => {
  it('treats initialize as legacy', () => {
    expect(detectEra({ method: 'initialize', params: {} })).toBe('legacy');
  });

  it('treats an initialize carrying the modern _meta as modern, so it gets the revision’s 404 and -32601 (S-111)', () => {
    expect(detectEra({ method: 'initialize', params: { protocolVersion: '2025-11-25', ...modernMeta } })).toBe('modern');
  });

  it('treats the modern _meta version as modern, even beside a session id', () => {
    expect(detectEra({ method: 'tools/list', params: modernMeta })).toBe('modern');
    expect(detectEra({ method: 'tools/list', params: modernMeta, sessionId: 'abc' })).toBe('modern');
  });

  it('treats a session id as legacy', () => {
    expect(detectEra({ method: 'tools/list', sessionId: 'abc', protocolVersionHeader: '2025-06-18' })).toBe('legacy');
  });

  it('treats a modern version header without _meta as modern so the request gets the modern error', () => {
    expect(detectEra({ method: 'tools/list', protocolVersionHeader: '2026-07-28' })).toBe('modern');
  });

  it('falls back to legacy when nothing says modern', () => {
    expect(detectEra({ method: 'tools/list' })).toBe('legacy');
    expect(detectEra({})).toBe('legacy');
  });
});
