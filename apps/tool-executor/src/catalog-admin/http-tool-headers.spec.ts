import { describe, expect, it } from 'vitest';
import { WireErrorCode } from '@mcp-platform/shared-messaging';
import { headersAsSet, mergeHttpHeaders } from './http-tool-headers';

const URL_A = 'https://api.example.com/run';
const stored = { url: URL_A, headers: { 'x-api-key': 'secret-1', 'x-tenant': 'acme' } };

function refusal(run: () => unknown): { code?: string; message?: string } | undefined {
  try {
    run();
  } catch (error) {
    return error as { code?: string; message?: string };
  }
  return undefined;
}

describe(mergeHttpHeaders, () => {
  it('stores a new tool’s headers with lowercase names', () => {
    expect(mergeHttpHeaders({ 'X-Api-Key': 'k' }, URL_A, undefined)).toEqual({ 'x-api-key': 'k' });
    expect(mergeHttpHeaders(undefined, URL_A, undefined)).toBeUndefined();
  });

  it('keeps every stored header when the update names none (headers absent or empty)', () => {
    expect(mergeHttpHeaders(undefined, URL_A, stored)).toEqual(stored.headers);
    expect(mergeHttpHeaders({}, URL_A, stored)).toEqual(stored.headers);
  });

  it('sets one header, removes another with null, and keeps the rest, in any letter case', () => {
    expect(mergeHttpHeaders({ 'X-API-KEY': 'secret-2' }, URL_A, stored)).toEqual({ 'x-api-key': 'secret-2', 'x-tenant': 'acme' });
    expect(mergeHttpHeaders({ 'X-Tenant': null }, URL_A, stored)).toEqual({ 'x-api-key': 'secret-1' });
    expect(mergeHttpHeaders({ 'x-api-key': null, 'x-tenant': null }, URL_A, stored)).toBeUndefined();
  });

  it('keeps a header written back as shown ({ set: true }), so a definition read from the API can be written again', () => {
    expect(mergeHttpHeaders(headersAsSet(stored.headers), URL_A, stored)).toEqual(stored.headers);
  });

  it('refuses { set: true } for a header that has no stored value, and a name given twice', () => {
    expect(refusal(() => mergeHttpHeaders({ 'x-new': { set: true } }, URL_A, stored))).toMatchObject({
      code: WireErrorCode.InvalidParams,
      message: expect.stringContaining('x-new has no stored value'),
    });
    expect(refusal(() => mergeHttpHeaders({ 'X-Key': 'a', 'x-key': 'b' }, URL_A, undefined))).toMatchObject({
      code: WireErrorCode.InvalidParams,
      message: expect.stringContaining('named twice'),
    });
  });

  it('does not carry stored values to another origin: each must be sent again or removed', () => {
    const moved = 'https://collector.example.net/run';
    const error = refusal(() => mergeHttpHeaders(undefined, moved, stored));
    expect(error).toMatchObject({ code: WireErrorCode.InvalidParams, message: expect.stringContaining('send x-api-key, x-tenant again') });
    expect(error?.message).not.toContain('secret-1');
    expect(refusal(() => mergeHttpHeaders({ 'x-api-key': 'secret-3' }, moved, stored))?.message).toContain('send x-tenant again');
    expect(mergeHttpHeaders({ 'x-api-key': 'secret-3', 'x-tenant': null }, moved, stored)).toEqual({ 'x-api-key': 'secret-3' });
    // Another path or query on the same origin keeps them.
    expect(mergeHttpHeaders(undefined, 'https://api.example.com/v2/run?x=1', stored)).toEqual(stored.headers);
    // A port or scheme change is another origin.
    expect(refusal(() => mergeHttpHeaders(undefined, 'http://api.example.com/run', stored))).toBeDefined();
    expect(refusal(() => mergeHttpHeaders(undefined, 'https://api.example.com:8443/run', stored))).toBeDefined();
  });
});

describe(headersAsSet, () => {
  it('shows each header as set and never its value', () => {
    expect(headersAsSet({ 'x-api-key': 'secret-1' })).toEqual({ 'x-api-key': { set: true } });
    expect(headersAsSet(undefined)).toBeUndefined();
  });
});
