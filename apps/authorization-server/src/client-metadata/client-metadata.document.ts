import { z } from 'zod';
import { redirectUriProblem } from '../clients/redirect-uri.policy';

/** The largest document read; a longer one is refused, not truncated. */
export const MAX_CLIENT_METADATA_BYTES = 5 * 1024;

/**
 * Whether a `client_id` names a Client ID Metadata Document (S-163): an `https` URL with a path
 * other than `/`, without fragment, credentials or dot segments. Anything else is an ordinary client id.
 */
export function isClientMetadataDocumentUrl(clientId: string): boolean {
  if (!clientId.startsWith('https://')) return false;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' || url.username || url.password || url.hash || clientId.includes('#')) return false;
  if (url.pathname === '/' || url.pathname === '') return false;
  // The URL must be the client id exactly as written: no normalisation (dot segments, case of the host) may hide another one.
  return url.href === clientId && !/\/\.\.?(\/|$)/.test(url.pathname);
}

const WebUrl = z.string().max(2000).url();

/**
 * A Client ID Metadata Document: RFC 7591 client metadata served at the client id's URL. Unknown
 * members are dropped. A document is public, so it can never hold a secret: such clients
 * authenticate with `none` (PKCE) or `private_key_jwt` (S-166) and keys in `jwks` or `jwks_uri`.
 */
export const ClientMetadataDocumentSchema = z
  .object({
    client_id: z.string(),
    client_name: z.string().trim().min(1).max(200),
    redirect_uris: z.array(z.string().min(1).max(2000)).min(1).max(20),
    client_uri: WebUrl.optional(),
    logo_uri: WebUrl.optional(),
    tos_uri: WebUrl.optional(),
    policy_uri: WebUrl.optional(),
    software_id: z.string().max(200).optional(),
    software_version: z.string().max(200).optional(),
    contacts: z.array(z.string().max(320)).max(10).optional(),
    application_type: z.enum(['web', 'native']).optional(),
    grant_types: z
      .array(z.enum(['authorization_code', 'refresh_token']))
      .min(1)
      .optional(),
    response_types: z.array(z.literal('code')).min(1).optional(),
    token_endpoint_auth_method: z.enum(['none', 'private_key_jwt']).optional(),
    token_endpoint_auth_signing_alg: z.string().max(20).optional(),
    jwks: z.object({ keys: z.array(z.record(z.string(), z.unknown())).min(1).max(10) }).optional(),
    jwks_uri: z.string().max(2000).url().startsWith('https://').optional(),
    scope: z.string().max(2000).optional(),
    client_secret: z.never({ error: 'a Client ID Metadata Document is public: it must not contain a client_secret' }).optional(),
  })
  .superRefine((document, context) => {
    const applicationType = document.application_type ?? 'web';
    for (const uri of document.redirect_uris) {
      const problem = redirectUriProblem(uri, applicationType);
      if (problem) context.addIssue({ code: 'custom', path: ['redirect_uris'], message: problem });
    }
    if (document.token_endpoint_auth_method === 'private_key_jwt' && !document.jwks && !document.jwks_uri) {
      context.addIssue({ code: 'custom', path: ['jwks'], message: 'private_key_jwt needs jwks or jwks_uri' });
    }
    if (document.jwks && document.jwks_uri) context.addIssue({ code: 'custom', path: ['jwks_uri'], message: 'jwks and jwks_uri are mutually exclusive' });
  });
export type ClientMetadataDocument = z.output<typeof ClientMetadataDocumentSchema>;

/**
 * Validates a fetched document for the client id it was fetched from (S-163): JSON, the schema above,
 * and `client_id` equal to the URL exactly. Answers the oidc-provider client metadata, or why not.
 */
export function parseClientMetadataDocument(clientId: string, body: string): { ok: true; metadata: Record<string, unknown> } | { ok: false; reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, reason: 'the document is not valid JSON' };
  }
  const parsed = ClientMetadataDocumentSchema.safeParse(json);
  if (!parsed.success) {
    return { ok: false, reason: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'document'}: ${issue.message}`).join('; ') };
  }
  const document = parsed.data;
  if (document.client_id !== clientId) return { ok: false, reason: `its client_id ${JSON.stringify(document.client_id)} is not the URL it was fetched from` };
  const grantTypes = document.grant_types ?? ['authorization_code'];
  return {
    ok: true,
    metadata: {
      ...document,
      application_type: document.application_type ?? 'web',
      grant_types: grantTypes.includes('authorization_code') ? grantTypes : ['authorization_code', ...grantTypes],
      response_types: ['code'],
      token_endpoint_auth_method: document.token_endpoint_auth_method ?? 'none',
    },
  };
}

/** Bounds of how long a document is cached: at least a minute, at most a day, five minutes by default. */
export const CLIENT_METADATA_CACHE = { minSeconds: 60, maxSeconds: 24 * 3600, defaultSeconds: 300, negativeSeconds: 30 } as const;

/**
 * How long to keep a fetched document, from its `Cache-Control` (S-163): `max-age` bounded to
 * [60 s, 24 h]; `no-store`/`no-cache` count as the minimum (the document is needed for the whole
 * authorization flow, re-fetching it on every request would let a host flip it mid-flow); the
 * default is five minutes.
 */
export function cacheLifetimeSeconds(cacheControl: string | undefined): number {
  const { minSeconds, maxSeconds, defaultSeconds } = CLIENT_METADATA_CACHE;
  if (!cacheControl) return defaultSeconds;
  const directives = cacheControl
    .toLowerCase()
    .split(',')
    .map((part) => part.trim());
  if (directives.some((directive) => directive === 'no-store' || directive === 'no-cache')) return minSeconds;
  const maxAge = directives.map((directive) => /^max-age\s*=\s*"?(\d+)"?$/.exec(directive)?.[1]).find((value) => value !== undefined);
  if (maxAge === undefined) return defaultSeconds;
  return Math.min(maxSeconds, Math.max(minSeconds, Number.parseInt(maxAge, 10)));
}
