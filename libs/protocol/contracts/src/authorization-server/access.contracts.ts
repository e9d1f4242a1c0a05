import { z } from 'zod';
import { TENANT_SLUG_PATTERN } from '../common/tenant';
import { defineEvent, defineRpc } from '../define-contract';

/**
 * How long a revocation matters: the longest access-token lifetime the authorization server allows
 * (`ACCESS_TOKEN_TTL_SECONDS` at most 24 hours) plus a margin for clock skew. A token issued before a
 * revocation has expired by then, so the revocation can go.
 */
export const REVOCATION_HORIZON_MS = (24 * 3600 + 600) * 1000;

/**
 * One revocation: every token of the tenant (by its immutable id) or of the subject issued until
 * `revokedAt` stops working. The authorization server records one when a tenant or a user is disabled
 * or deleted.
 */
export const RevocationSchema = z.object({
  /** `tenant`: the tenant's id (the `tenant_id` claim); `subject`: a user's id or a client's id (the `sub` claim). */
  kind: z.enum(['tenant', 'subject']),
  id: z.string().min(1).max(512),
  /** Epoch milliseconds; tokens issued at or before it are refused. */
  revokedAt: z.number().int().nonnegative(),
  /** For a tenant: its slug, so a resource server can close what it holds of the tenant. */
  tenant: z.string().regex(TENANT_SLUG_PATTERN).optional(),
});
export type Revocation = z.infer<typeof RevocationSchema>;

/**
 * Every revocation within `REVOCATION_HORIZON_MS`, from the authorization server's database: resource
 * servers (the session brokers) load them before they verify their first token, and again now and
 * then in case they missed an `accessRevoked` event. Never asked per request.
 */
export const listRevocations = defineRpc({
  subject: 'authorization-server.v1.revocation.list',
  request: z.object({}),
  response: z.object({ revocations: z.array(RevocationSchema) }),
});

/** A tenant or a subject was revoked: every resource server replica refuses its older tokens from now on. */
export const accessRevoked = defineEvent({
  subject: 'authorization-server.v1.revocation.created',
  delivery: 'all',
  payload: RevocationSchema,
});

/**
 * A tenant was created, enabled, disabled or deleted. Every broker replica drops what it cached of the
 * tenant's virtual servers; on `disabled` and `deleted` it refuses the tenant's callers at once (those
 * without a token too) and closes the connections it holds open for them (GET, call, listen and
 * `tasks/result` streams). `tenantId` is the tenant's immutable id, the `tenant_id` claim of its tokens.
 */
export const tenantStateChanged = defineEvent({
  subject: 'authorization-server.v1.tenant.changed',
  delivery: 'all',
  payload: z.object({
    tenant: z.string().regex(TENANT_SLUG_PATTERN),
    tenantId: z.string().uuid(),
    state: z.enum(['enabled', 'disabled', 'deleted']),
  }),
});
