import { eraOfVersion, type ProtocolEra } from '../versions';
import type { EraCodec } from './era-codec';
import { legacyCodec } from './legacy.codec';
import { modernCodec } from './modern.codec';

/** The codec of an era. */
export function codecOf(era: ProtocolEra): EraCodec {
  return era === 'modern' ? modernCodec : legacyCodec;
}

/** The codec of a revision: every modern revision (2026-07-28 and later) the modern one, every older one the legacy one. */
export function codecOfVersion(protocolVersion: string): EraCodec {
  return codecOf(eraOfVersion(protocolVersion));
}
