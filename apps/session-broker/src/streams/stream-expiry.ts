import type { LazyResponse } from './lazy-response';

/** The longest delay `setTimeout` takes (about 24.8 days); access tokens live far less (at most a day). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Runs `end` when `endsAt` (epoch milliseconds, an access token's expiry) arrives, without keeping the
 * process alive. A long-lived stream ends with the token that opened it; clear the timer when the
 * stream ends first.
 */
export function endWhenExpired(endsAt: number, end: () => void): NodeJS.Timeout {
  const timer = setTimeout(end, Math.min(Math.max(0, endsAt - Date.now()), MAX_TIMER_MS));
  timer.unref();
  return timer;
}

/** How often a long-lived SSE stream gets a comment (S-106), well under common proxy idle timeouts. */
export const KEEP_ALIVE_MS = 25_000;

/**
 * Writes an SSE keep-alive comment on `response` every {@link KEEP_ALIVE_MS}, without keeping the process
 * alive; clear the timer when the stream ends.
 */
export function keepAliveEvery(response: LazyResponse): NodeJS.Timeout {
  const timer = setInterval(() => response.keepAlive(), KEEP_ALIVE_MS);
  timer.unref();
  return timer;
}
