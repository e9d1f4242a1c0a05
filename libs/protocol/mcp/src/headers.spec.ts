import { describe, expect, it } from 'vitest';
import { decodeMcpHeaderValue, encodeMcpHeaderValue, expectedMcpName } from './headers';

describe('decodeMcpHeaderValue', () => {
  it('passes plain ASCII values through', () => {
    expect(decodeMcpHeaderValue('get_weather')).toEqual({ ok: true, value: 'get_weather' });
  });

  it('decodes the Base64 sentinel into UTF-8', () => {
    expect(decodeMcpHeaderValue('=?base64?SGVsbG8sIOS4lueVjA==?=')).toEqual({ ok: true, value: 'Hello, 世界' });
    expect(decodeMcpHeaderValue('=?base64?IHBhZGRlZCA=?=')).toEqual({ ok: true, value: ' padded ' });
    expect(decodeMcpHeaderValue('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=')).toEqual({ ok: true, value: '=?base64?literal?=' });
  });

  it('treats the markers case-sensitively', () => {
    expect(decodeMcpHeaderValue('=?BASE64?SGk=?=')).toEqual({ ok: true, value: '=?BASE64?SGk=?=' });
  });

  it('rejects broken Base64, invalid UTF-8 and control characters', () => {
    expect(decodeMcpHeaderValue('=?base64?not base64!?=').ok).toBe(false);
    expect(decodeMcpHeaderValue('=?base64?SGk?=').ok).toBe(false);
    expect(decodeMcpHeaderValue('=?base64?/w==?=').ok).toBe(false);
    expect(decodeMcpHeaderValue('=?base64?SGVsbG9=?=')).toEqual({ ok: false, reason: 'the Base64 sentinel value is not canonical Base64' });
    expect(decodeMcpHeaderValue('a\u0001b').ok).toBe(false);
    expect(decodeMcpHeaderValue('caf\u00e9').ok).toBe(false);
  });
});

describe('encodeMcpHeaderValue', () => {
  it('encodes what cannot travel plainly and round-trips through the decoder', () => {
    for (const value of ['plain', 'Hello, 世界', ' padded ', 'line1\nline2', '=?base64?literal?=']) {
      expect(decodeMcpHeaderValue(encodeMcpHeaderValue(value))).toEqual({ ok: true, value });
    }
    expect(encodeMcpHeaderValue('us-west1')).toBe('us-west1');
    expect(encodeMcpHeaderValue('Hello, 世界')).toBe('=?base64?SGVsbG8sIOS4lueVjA==?=');
  });
});

describe('expectedMcpName', () => {
  it('names params.name for tools/call and params.uri for resources/read', () => {
    expect(expectedMcpName('tools/call', { name: 'echo' })).toEqual({ required: true, value: 'echo' });
    expect(expectedMcpName('resources/read', { uri: 'test://x' })).toEqual({ required: true, value: 'test://x' });
  });

  it('requires nothing for other methods', () => {
    expect(expectedMcpName('tools/list', {})).toEqual({ required: false, value: undefined });
    expect(expectedMcpName('constructor', {})).toEqual({ required: false, value: undefined });
  });
});
