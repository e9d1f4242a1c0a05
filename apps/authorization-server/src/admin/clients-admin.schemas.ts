import { z } from 'zod';
import { NewClientInputSchema } from '../clients/clients.service';

/**
 * Bodies and answers of the OAuth client routes, in the names of Dynamic Client Registration
 * (RFC 7591 §2 and §3.2.1), so a pre-registered client reads like a dynamically registered one.
 */

/** A pre-registered client's id (random, URL-safe). */
export const ClientIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'a client id is 1..128 of A-Z a-z 0-9 "_" "-"');

/** A new client: its metadata (RFC 7591 §2). Confidential clients get a secret, public ones (`none`) use PKCE only. */
export const CreateClientBodySchema = NewClientInputSchema;
export type CreateClientBody = z.output<typeof CreateClientBodySchema>;

/** A client as the API shows it: never its secret (stored only as a hash). */
export const ClientViewSchema = z.object({
  client_id: z.string(),
  /** The owning tenant; its users are the ones who can authorize the client. */
  tenant: z.string(),
  client_name: z.string(),
  redirect_uris: z.array(z.string()),
  grant_types: z.array(z.string()),
  token_endpoint_auth_method: z.string(),
  application_type: z.enum(['web', 'native']),
  /** The scopes the client may obtain at most (space-separated); absent: no limit beyond the user's roles. */
  scope: z.string().optional(),
  /** Seconds since the epoch (RFC 7591 §3.2.1). */
  client_id_issued_at: z.number().int(),
});
export type ClientView = z.output<typeof ClientViewSchema>;

export const ClientListSchema = z.object({ clients: z.array(ClientViewSchema) });

/** The answer of a registration: the client, and for a confidential one its secret, shown this once. */
export const CreatedClientSchema = ClientViewSchema.extend({
  client_secret: z.string().optional(),
  /** `0`: the secret does not expire (RFC 7591 §3.2.1; present when a secret is). */
  client_secret_expires_at: z.literal(0).optional(),
});
export type CreatedClientView = z.output<typeof CreatedClientSchema>;
