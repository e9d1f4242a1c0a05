import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
  UnauthorizedError as ModernUnauthorizedError,
} from '@modelcontextprotocol/client';
import { UnauthorizedError as LegacyUnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'vitest';
import { type LegacySdkOAuthProvider, MODERN_PROTOCOL_VERSION, type ModernSdkOAuthProvider } from '@mcp-platform/shared-testing';

/** A fetch for the SDK transports that records every request it makes (method, URL, status), changing nothing. */
export interface FetchRecorder {
  /** `"<METHOD> <url> <status>"`, in order. */
  readonly entries: string[];
  /** The `WWW-Authenticate` header of every 403 answer, in order (the step-up challenges). */
  readonly forbiddenChallenges: string[];
  fetch(url: string | URL, init?: RequestInit): Promise<Response>;
}

export function recordingFetch(): FetchRecorder {
  const entries: string[] = [];
  const forbiddenChallenges: string[] = [];
  return {
    entries,
    forbiddenChallenges,
    async fetch(url, init) {
      const response = await fetch(url, init);
      entries.push(`${(init?.method ?? 'GET').toUpperCase()} ${String(url)} ${response.status}`);
      if (response.status === 403) forbiddenChallenges.push(response.headers.get('www-authenticate') ?? '');
      return response;
    },
  };
}

/** The position of the first recorded request matching `pattern` (-1 when none), for order assertions. */
export function firstIndex(recorder: FetchRecorder, pattern: RegExp | string): number {
  return recorder.entries.findIndex((entry) => (typeof pattern === 'string' ? entry.startsWith(pattern) : pattern.test(entry)));
}

export function legacyClient(): LegacyClient {
  return new LegacyClient({ name: 'e2e-legacy-oauth', version: '1.0.0' });
}

export function modernClient(): ModernClient {
  return new ModernClient({ name: 'e2e-modern-oauth', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } });
}

/** A connected legacy SDK client and its transport. */
export interface LegacyConnection {
  client: LegacyClient;
  transport: LegacyTransport;
}

/**
 * Connects the legacy SDK client with an auth provider the way an interactive application does:
 * the first attempt meets the 401, the SDK discovers, registers and sends the user to the
 * authorization page (the provider's browser plays the user) and fails with `UnauthorizedError`;
 * the application hands the code to `finishAuth` and connects again with a new transport.
 */
export async function connectLegacy(url: string, provider: LegacySdkOAuthProvider, fetchFn?: FetchRecorder['fetch']): Promise<LegacyConnection> {
  const options = { authProvider: provider, ...(fetchFn ? { fetch: fetchFn } : {}) };
  const first = new LegacyTransport(new URL(url), options);
  const firstClient = legacyClient();
  const refused: unknown = await firstClient.connect(first).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (refused === undefined) return { client: firstClient, transport: first };
  expect(refused, String(refused)).toBeInstanceOf(LegacyUnauthorizedError);
  await first.finishAuth(provider.takeAuthorizationCode());
  await firstClient.close();
  const transport = new LegacyTransport(new URL(url), options);
  const client = legacyClient();
  await client.connect(transport);
  return { client, transport };
}

/** A connected modern client and its transport. */
export interface ModernConnection {
  client: ModernClient;
  transport: ModernTransport;
}

/** The modern client's version of `connectLegacy`; its `finishAuth` takes the callback parameters and checks RFC 9207 `iss`. */
export async function connectModern(url: string, provider: ModernSdkOAuthProvider, fetchFn?: FetchRecorder['fetch']): Promise<ModernConnection> {
  const options = { authProvider: provider, ...(fetchFn ? { fetch: fetchFn } : {}) };
  const first = new ModernTransport(new URL(url), options);
  const firstClient = modernClient();
  const refused: unknown = await firstClient.connect(first).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (refused === undefined) return { client: firstClient, transport: first };
  expect(ModernUnauthorizedError.isInstance(refused), String(refused)).toBe(true);
  await first.finishAuth(provider.takeCallbackParams());
  await firstClient.close();
  const transport = new ModernTransport(new URL(url), options);
  const client = modernClient();
  await client.connect(transport);
  return { client, transport };
}

/** Whether an error is the legacy SDK's or the modern client's `UnauthorizedError` (an authorization redirect is pending). */
export function isUnauthorizedError(error: unknown): boolean {
  return error instanceof LegacyUnauthorizedError || ModernUnauthorizedError.isInstance(error);
}
