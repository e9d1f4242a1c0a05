import { waitForHttpOk } from '../network/wait-until';

/** A user's sign-in credentials, as a platform under test was seeded with them. */
export interface PlatformCredentials {
  username: string;
  password: string;
}

/** Where a platform under test signs users in, and who can sign in. */
export interface PlatformAuth {
  /** The authorization server's public origin (`AUTH_PUBLIC_URL`); the admin API is at `<authUrl>/admin/v1`. */
  readonly authUrl: string;
  /** The OAuth issuer, `<authUrl>/oauth`. */
  readonly issuer: string;
  /** The seeded demo user (tenant `demo`, role `member`). */
  readonly demoUser: PlatformCredentials;
  /** The bootstrap platform admin, when the platform was started with one. */
  readonly adminUser?: PlatformCredentials;
}

/** What `startStandalone()` of `apps/standalone` returns. */
export interface StandaloneHandle {
  /** Base URL the embedded platform listens on, e.g. `http://127.0.0.1:41234`. */
  url: string;
  authUrl: string;
  issuer: string;
  demoUser: PlatformCredentials;
  adminUser?: PlatformCredentials;
  close(): Promise<void>;
}

/** The embedded platform, booted in this process. */
export interface EmbeddedPlatform extends PlatformAuth {
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
    authUrl: handle.authUrl,
    issuer: handle.issuer,
    demoUser: handle.demoUser,
    ...(handle.adminUser ? { adminUser: handle.adminUser } : {}),
    async stop() {
      if (stopped) return;
      stopped = true;
      await handle.close();
    },
  };
}
