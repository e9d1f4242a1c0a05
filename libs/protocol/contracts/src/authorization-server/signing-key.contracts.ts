import { z } from 'zod';
import { defineEvent, defineRpc } from '../define-contract';

/**
 * A public JSON Web Key (RFC 7517) as the authorization server publishes it. Private members are
 * refused by the schema, so a key with its secret half can never cross the bus by mistake.
 */
export const PublicJwkSchema = z
  .object({
    kty: z.string().min(1),
    kid: z.string().min(1),
    alg: z.string().optional(),
    use: z.string().optional(),
  })
  .catchall(z.unknown())
  .refine((key) => !['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'].some((member) => member in key), {
    message: 'a public JWK must not carry private key members',
  });
export type PublicJwk = z.infer<typeof PublicJwkSchema>;

/**
 * The keys that verify the access tokens the authorization server issues: the current signer first,
 * then keys retired recently enough that tokens they signed may still be valid. Resource servers
 * (the session broker, the admin API) verify tokens locally against these and ask again when a
 * token names a `kid` they do not know.
 */
export const listSigningKeys = defineRpc({
  subject: 'authorization-server.v1.signing-key.list',
  request: z.object({}),
  response: z.object({
    /** The issuer (`iss`) every token carries, exactly as published in the metadata (S-158). */
    issuer: z.string().url(),
    keys: z.array(PublicJwkSchema),
  }),
});

/** A new signing key took over, or an old one was dropped: resource servers refresh their key sets. */
export const signingKeysRotated = defineEvent({
  subject: 'authorization-server.v1.signing-key.rotated',
  delivery: 'all',
  payload: z.object({ kids: z.array(z.string()) }),
});
