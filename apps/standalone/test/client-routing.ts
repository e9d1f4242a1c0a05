/**
 * What a client's transport POSTs, as the tests that route some of it to another broker replica (no
 * stickiness) need to tell it apart.
 */

/** A JSON-RPC response (a legacy client's answer to a server request), as opposed to a request or notification. */
export function isResponseBody(body: unknown): boolean {
  if (typeof body !== 'string') return false;
  try {
    const message = JSON.parse(body) as Record<string, unknown>;
    return !('method' in message) && ('result' in message || 'error' in message);
  } catch {
    return false;
  }
}

/** Whether a POSTed body retries a modern multi round-trip request: it echoes a `requestState` (S-69). */
export function isRetry(body: unknown): boolean {
  if (typeof body !== 'string') return false;
  try {
    const message = JSON.parse(body) as { params?: Record<string, unknown> };
    return typeof message.params?.['requestState'] === 'string';
  } catch {
    return false;
  }
}
