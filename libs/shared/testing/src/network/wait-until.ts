/** Options of a bounded wait. */
export interface WaitOptions {
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
  /** Pause between attempts (default 100 ms). */
  intervalMs?: number;
  /** What is awaited, for the error message. */
  description?: string;
}

/**
 * Calls `probe` until it returns a value other than `undefined`/`false`, with a deadline. Errors thrown
 * by the probe count as "not yet"; the last one is named in the timeout error.
 */
export async function waitUntil<T>(probe: () => Promise<T | undefined | false>, options: WaitOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const intervalMs = options.intervalMs ?? 100;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() + intervalMs > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.description ?? 'a condition'}${reason}`);
}

/** Waits until `url` answers a GET with a 2xx status (e.g. `/health/ready`). */
export async function waitForHttpOk(url: string, options: WaitOptions = {}): Promise<void> {
  await waitUntil(
    async () => {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`${url} answered ${response.status}`);
      return true;
    },
    { description: url, ...options },
  );
}
