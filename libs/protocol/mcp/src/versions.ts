import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION } from '@modelcontextprotocol/core/internal';
import { z } from 'zod';

/**
 * Legacy revisions (the `initialize` handshake, sessions), newest first: the order is our
 * preference when we negotiate (S-44).
 */
export const LEGACY_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;

/** Modern revisions (per-request `_meta`, no handshake, no sessions), newest first. */
export const MODERN_PROTOCOL_VERSIONS = ['2026-07-28'] as const;

/** Every revision this platform serves, modern first (what `server/discover` and `-32022` list). */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS];

/** Our newest legacy revision: the answer to an `initialize` asking for a version we do not serve (S-44). */
export const LATEST_LEGACY_PROTOCOL_VERSION = LEGACY_PROTOCOL_VERSIONS[0];

/** Our newest modern revision. */
export const LATEST_MODERN_PROTOCOL_VERSION = MODERN_PROTOCOL_VERSIONS[0];

/** The version a legacy request without `MCP-Protocol-Version` is assumed to speak (S-95, S-110). */
export const ASSUMED_LEGACY_PROTOCOL_VERSION: string = DEFAULT_NEGOTIATED_PROTOCOL_VERSION;

/** The first revision of the modern era; revision identifiers are dates, so they compare as strings. */
export const FIRST_MODERN_PROTOCOL_VERSION = '2026-07-28';

/** A protocol revision identifier (`YYYY-MM-DD`). */
export const ProtocolVersionSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
export type ProtocolVersion = z.infer<typeof ProtocolVersionSchema>;

/** The two generations of MCP that share one endpoint (DESIGN.md §2). */
export const ProtocolEraSchema = z.enum(['legacy', 'modern']);
export type ProtocolEra = z.infer<typeof ProtocolEraSchema>;

const legacyVersions: ReadonlySet<string> = new Set(LEGACY_PROTOCOL_VERSIONS);
const modernVersions: ReadonlySet<string> = new Set(MODERN_PROTOCOL_VERSIONS);

/** True for a legacy revision we serve. */
export function isSupportedLegacyVersion(version: string): boolean {
  return legacyVersions.has(version);
}

/** True for a modern revision we serve. */
export function isSupportedModernVersion(version: string): boolean {
  return modernVersions.has(version);
}

/** The era a revision identifier belongs to (unknown future dates are modern, older ones legacy). */
export function eraOfVersion(version: string): ProtocolEra {
  return version >= FIRST_MODERN_PROTOCOL_VERSION ? 'modern' : 'legacy';
}

/**
 * Legacy version negotiation (S-44): echo the client's version when we serve it, otherwise offer
 * our latest legacy version and let the client decide whether it can speak it.
 */
export function negotiateLegacyVersion(requested: string): string {
  return isSupportedLegacyVersion(requested) ? requested : LATEST_LEGACY_PROTOCOL_VERSION;
}
