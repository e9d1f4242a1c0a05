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
