import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findRepoRoot } from '../platform/repo-root';

/** The fixture upstream over Streamable HTTP on 127.0.0.1 (`fixtures/legacy-upstream.mjs`). */
export interface LegacyUpstream {
  url: string;
  requests: Array<{ method: string | undefined; headers: Record<string, string | string[] | undefined>; body: unknown }>;
  /** Changes `echo`'s description and tells every session (`notifications/tools/list_changed`). */
  setEchoDescription(text: string): void;
  /** Forgets every session: the next request with an old id gets 404. */
  dropSessions(): void;
  close(): Promise<void>;
}

/**
 * The file of an upstream MCP server of the 2025 era on the official SDK 1.x (tools `echo`, `slow` with
 * progress, `whoami`): plain JavaScript, so a test's stdio source can run it as `node <file> --stdio`.
 */
export function legacyUpstreamFixture(): string {
  return join(findRepoRoot(), 'libs/shared/testing/fixtures/legacy-upstream.mjs');
}

/** Starts the fixture over Streamable HTTP (stateful sessions) on 127.0.0.1 and a free port. */
export async function startLegacyUpstream(): Promise<LegacyUpstream> {
  // An ES module (it also runs on its own over stdio): imported by URL, never required.
  const fixture = (await import(pathToFileURL(legacyUpstreamFixture()).href)) as { startLegacyUpstream(): Promise<LegacyUpstream> };
  return fixture.startLegacyUpstream();
}

/** The 2026-07-28 fixture upstream (`fixtures/modern-upstream.mjs`: SDK 2.x, stateless, 2025 requests refused). */
export interface ModernUpstream {
  url: string;
  close(): Promise<void>;
}

/** Starts the modern fixture (tool `echo`) on 127.0.0.1 and a free port. */
export async function startModernUpstream(): Promise<ModernUpstream> {
  const file = join(findRepoRoot(), 'libs/shared/testing/fixtures/modern-upstream.mjs');
  const fixture = (await import(pathToFileURL(file).href)) as { startModernUpstream(): Promise<ModernUpstream> };
  return fixture.startModernUpstream();
}
