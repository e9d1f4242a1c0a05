import { waitForHttpOk } from '../network/wait-until';

/** What `startStandalone()` of `apps/standalone` returns. */
export interface StandaloneHandle {
  /** Base URL the embedded platform listens on, e.g. `http://127.0.0.1:41234`. */
  url: string;
  close(): Promise<void>;
}

/** The embedded platform, booted in this process. */
export interface EmbeddedPlatform {
  readonly mode: 'embedded';
  /** Base URL without a trailing slash. */
  readonly baseUrl: string;
  stop(): Promise<void>;
}

/**
 * Boots the embedded platform in-process through the app's own entry point (passed in, so this lib
 * never imports an app) and waits until its readiness probe answers.
 */
export async function bootEmbedded<Options>(
  startStandalone: (options: Options) => Promise<StandaloneHandle>,
  options: Options,
  readyTimeoutMs = 60_000,
): Promise<EmbeddedPlatform> {
  const handle = await startStandalone(options);
  const baseUrl = handle.url.replace(/\/+$/, '');
  try {
    await waitForHttpOk(`${baseUrl}/health/ready`, { timeoutMs: readyTimeoutMs, description: 'the embedded platform to be ready' });
  } catch (error) {
    await handle.close();
    throw error;
  }
  let stopped = false;
  return {
    mode: 'embedded',
    baseUrl,
    async stop() {
      if (stopped) return;
      stopped = true;
      await handle.close();
    },
  };
}
