import { describe, expect, it } from 'vitest';
import { cacheLifetimeSeconds, isClientMetadataDocumentUrl, parseClientMetadataDocument } from './client-metadata.document';

const URL_ID = 'https://app.example.com/oauth/client.json';
const valid = { client_id: URL_ID, client_name: 'Example', redirect_uris: ['http://127.0.0.1:3333/callback'] };

describe(isClientMetadataDocumentUrl, () => {
  it.each([URL_ID, 'https://app.example.com/c', 'https://app.example.com:8443/a/b?x=1'])('takes %s for a document URL', (id) => {
    expect(isClientMetadataDocumentUrl(id)).toBe(true);
  });

  it.each([
    'http://app.example.com/client.json',
    'https://app.example.com',
    'https://app.example.com/',
    'https://user:pw@app.example.com/c',
    'https://app.example.com/c#x',
    'https://app.example.com/a/../c',
    'https://APP.example.com/c',
    'abc123',
    'urn:client:1',
  ])('does not take %s for a document URL', (id) => {
    expect(isClientMetadataDocumentUrl(id)).toBe(false);
  });
});

describe(parseClientMetadataDocument, () => {
  it('accepts a valid document and defaults it to a public authorization-code client', () => {
    const result = parseClientMetadataDocument(URL_ID, JSON.stringify({ ...valid, unknown_member: 1 }));
    expect(result).toEqual({
      ok: true,
      metadata: expect.objectContaining({
        client_id: URL_ID,
        client_name: 'Example',
        application_type: 'web',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(result.ok && 'unknown_member' in result.metadata).toBe(false);
  });

  it('refuses a document whose client_id is not the URL exactly (S-163)', () => {
    const result = parseClientMetadataDocument(URL_ID, JSON.stringify({ ...valid, client_id: `${URL_ID}?x` }));
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/is not the URL it was fetched from/) });
  });

  it.each([
    ['not JSON', '{', /not valid JSON/],
    ['no client_name', JSON.stringify({ client_id: URL_ID, redirect_uris: ['https://a.example/cb'] }), /client_name/],
    ['no redirect_uris', JSON.stringify({ client_id: URL_ID, client_name: 'x' }), /redirect_uris/],
    ['an http redirect off loopback', JSON.stringify({ ...valid, redirect_uris: ['http://app.example.com/cb'] }), /loopback/],
    ['a secret', JSON.stringify({ ...valid, client_secret: 's' }), /must not contain a client_secret/],
    ['a secret-based auth method', JSON.stringify({ ...valid, token_endpoint_auth_method: 'client_secret_basic' }), /token_endpoint_auth_method/],
    ['private_key_jwt without keys', JSON.stringify({ ...valid, token_endpoint_auth_method: 'private_key_jwt' }), /jwks/],
    ['client_credentials', JSON.stringify({ ...valid, grant_types: ['client_credentials'] }), /grant_types/],
  ])('refuses %s', (_case, body, reason) => {
    const result = parseClientMetadataDocument(URL_ID, body);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.reason).toMatch(reason);
  });
});

describe(cacheLifetimeSeconds, () => {
  it('defaults to five minutes', () => {
    expect(cacheLifetimeSeconds(undefined)).toBe(300);
    expect(cacheLifetimeSeconds('public')).toBe(300);
  });

  it('follows max-age within a minute and a day', () => {
    expect(cacheLifetimeSeconds('public, max-age=600')).toBe(600);
    expect(cacheLifetimeSeconds('max-age=5')).toBe(60);
    expect(cacheLifetimeSeconds('max-age=999999')).toBe(86_400);
  });

  it('keeps no-store and no-cache documents for the minimum', () => {
    expect(cacheLifetimeSeconds('no-store')).toBe(60);
    expect(cacheLifetimeSeconds('max-age=600, no-cache')).toBe(60);
  });
});
