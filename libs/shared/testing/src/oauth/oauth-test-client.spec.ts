import { describe, expect, it } from 'vitest';
import { type AuthorizationServerMetadata, clientSecretBasic, OAuthTestClient, postForm } from './oauth-test-client';

const ISSUER = 'http://127.0.0.1:3101/oauth';
const CALLBACK = 'http://127.0.0.1:9999/callback';

interface Sent {
  url: string;
  init: RequestInit;
}

/** A fetch that answers `response` and keeps what it was sent. */
function answering(response: () => Response): { fetch: (input: string, init: RequestInit) => Promise<Response>; sent: Sent[] } {
  const sent: Sent[] = [];
  return {
    sent,
    fetch: (url, init) => {
      sent.push({ url, init });
      return Promise.resolve(response());
    },
  };
}

describe(clientSecretBasic, () => {
  it('base64-encodes id:secret', () => {
    expect(clientSecretBasic({ id: 'machine', secret: 's3cret' })).toBe(`Basic ${Buffer.from('machine:s3cret').toString('base64')}`);
  });

  it('form-urlencodes id and secret first (RFC 6749 §2.3.1), so a colon in either survives', () => {
    const header = clientSecretBasic({ id: 'a:b', secret: 'c d/é' });
    expect(Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8')).toBe('a%3Ab:c+d%2F%C3%A9');
  });
});

describe(postForm, () => {
  it('posts the fields urlencoded, with Basic client authentication when asked', async () => {
    const server = answering(() => Response.json({ active: false }));
    const answer = await postForm(
      `${ISSUER}/token/introspection`,
      { token: 't', token_type_hint: 'refresh_token' },
      { clientSecretBasic: { id: 'c', secret: 's' }, fetch: server.fetch },
    );
    expect(answer).toMatchObject({ status: 200, body: { active: false } });
    const [request] = server.sent;
    expect(request?.url).toBe(`${ISSUER}/token/introspection`);
    expect(request?.init.method).toBe('POST');
    expect(request?.init.body).toBe('token=t&token_type_hint=refresh_token');
    expect(request?.init.headers).toMatchObject({
      'content-type': 'application/x-www-form-urlencoded',
      authorization: clientSecretBasic({ id: 'c', secret: 's' }),
    });
  });

  it('sends no authorization header for a public client', async () => {
    const server = answering(() => Response.json({}));
    await postForm(`${ISSUER}/token`, { client_id: 'public' }, { fetch: server.fetch });
    expect(server.sent[0]?.init.headers).not.toHaveProperty('authorization');
  });

  it('answers an empty body for an empty or non-JSON answer, keeping the status and headers', async () => {
    const empty = await postForm(`${ISSUER}/token/revocation`, {}, { fetch: answering(() => new Response(null, { status: 200 })).fetch });
    expect(empty).toMatchObject({ status: 200, body: {} });
    const html = await postForm(
      `${ISSUER}/token`,
      {},
      { fetch: answering(() => new Response('<h1>oops</h1>', { status: 500, headers: { 'content-type': 'text/html' } })).fetch },
    );
    expect(html.status).toBe(500);
    expect(html.body).toEqual({});
    expect(html.headers.get('content-type')).toBe('text/html');
  });
});

describe(OAuthTestClient, () => {
  const metadata: AuthorizationServerMetadata = { issuer: ISSUER, authorization_endpoint: `${ISSUER}/auth`, token_endpoint: `${ISSUER}/token` };

  describe('fromMetadata', () => {
    it('builds authorization requests against the given endpoint without asking the server', () => {
      const client = OAuthTestClient.fromMetadata(metadata, { client_id: 'c1', redirect_uris: [CALLBACK] });
      const prepared = client.prepareAuthorization({ resource: 'http://127.0.0.1:3000/demo/default/mcp', scope: 'mcp', state: 'st' });
      expect(prepared.url.origin + prepared.url.pathname).toBe(`${ISSUER}/auth`);
      expect(Object.fromEntries(prepared.url.searchParams)).toEqual({
        response_type: 'code',
        client_id: 'c1',
        redirect_uri: CALLBACK,
        state: 'st',
        scope: 'mcp',
        resource: 'http://127.0.0.1:3000/demo/default/mcp',
        code_challenge: expect.any(String),
        code_challenge_method: 'S256',
      });
      expect(prepared.verifier).toEqual(expect.any(String));
    });
  });
});
