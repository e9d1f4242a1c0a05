import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/core/internal';
import { eraOfVersion, type ProtocolEra } from './versions';

/** What era detection looks at: the body's method and `_meta`, and two headers. */
export interface EraEvidence {
  method?: string;
  params?: Record<string, unknown>;
  /** `Mcp-Session-Id`, when sent. */
  sessionId?: string;
  /** `MCP-Protocol-Version`, when sent. */
  protocolVersionHeader?: string;
}

/**
 * Picks the era of one request on the dual-era endpoint (S-56, §3.3.7): the modern `_meta` protocol
 * version is modern, first (an `initialize` carrying it is a modern request for a method the revision
 * removed: 404 and -32601, S-111; a session id beside it is ignored, S-121); `initialize` is legacy; a
 * session id is legacy; a modern `MCP-Protocol-Version` header is modern (so a request that forgot
 * its `_meta` still gets the modern `-32602`); anything else is treated as legacy.
 */
export function detectEra(evidence: EraEvidence): ProtocolEra {
  const meta = evidence.params?.['_meta'];
  if (typeof meta === 'object' && meta !== null && Object.hasOwn(meta, PROTOCOL_VERSION_META_KEY)) return 'modern';
  if (evidence.method === 'initialize') return 'legacy';
  if (evidence.sessionId !== undefined) return 'legacy';
  if (evidence.protocolVersionHeader !== undefined && eraOfVersion(evidence.protocolVersionHeader) === 'modern') return 'modern';
  return 'legacy';
}
