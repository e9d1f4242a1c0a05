import { createHash } from 'node:crypto';
import type { RequestId } from '@mcp-platform/protocol-mcp';

/**
 * The platform-wide id of a legacy call, derived from the session and the client's JSON-RPC id, so
 * the replica that receives `notifications/cancelled` computes the same id as the one running the
 * call (§3.1.2: JSON-RPC ids are only unique per session; `1` and `"1"` are different ids).
 */
export function legacyCallId(sessionId: string, requestId: RequestId): string {
  const digest = createHash('sha256').update(sessionId).update('\u0000').update(JSON.stringify(requestId)).digest('base64url');
  return `l-${digest}`;
}

/**
 * A modern call has no session; only its own stream can cancel it (S-108), so any new id serves
 * (`id` from the injected IdSource). The prefix keeps it apart from every legacy call's id.
 */
export function modernCallId(id: string): string {
  return `m-${id}`;
}
