/**
 * An outbound call's failure in words, for the log and the tenant admin only (never for the caller: it
 * names internal addresses, issue 13 item 5): the error and its `cause` chain, which is where undici puts
 * what happened (`connect ECONNREFUSED 10.0.0.5:80`, `getaddrinfo ENOTFOUND …`, certificate errors), each
 * with its code when the message does not already say it.
 */
export function describeOutboundFailure(error: unknown): string {
  const parts: string[] = [];
  for (let current: unknown = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    const { message, code } = current as { message?: unknown; code?: unknown };
    const text = typeof message === 'string' && message ? message : String(current);
    parts.push(typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text);
  }
  return parts.join(': ');
}
