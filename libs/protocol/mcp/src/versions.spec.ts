import { describe, expect, it } from 'vitest';
import { eraOfVersion, isSupportedLegacyVersion, isSupportedModernVersion, negotiateLegacyVersion, SUPPORTED_PROTOCOL_VERSIONS } from './versions';

describe('negotiateLegacyVersion', () => {
  it('echoes a legacy version we serve', () => {
    expect(negotiateLegacyVersion('2025-06-18')).toBe('2025-06-18');
    expect(negotiateLegacyVersion('2025-03-26')).toBe('2025-03-26');
  });

  it('offers our latest legacy version for anything else', () => {
    expect(negotiateLegacyVersion('2024-11-05')).toBe('2025-11-25');
    expect(negotiateLegacyVersion('2026-07-28')).toBe('2025-11-25');
    expect(negotiateLegacyVersion('banana')).toBe('2025-11-25');
  });
});

describe('eraOfVersion', () => {
  it('puts 2026-07-28 and later in the modern era', () => {
    expect(eraOfVersion('2026-07-28')).toBe('modern');
    expect(eraOfVersion('2027-01-01')).toBe('modern');
  });

  it('puts earlier revisions in the legacy era', () => {
    expect(eraOfVersion('2025-11-25')).toBe('legacy');
    expect(eraOfVersion('2024-11-05')).toBe('legacy');
  });
});

describe('SUPPORTED_PROTOCOL_VERSIONS', () => {
  it('lists modern first, then the three legacy revisions', () => {
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26']);
    expect(isSupportedModernVersion('2026-07-28')).toBe(true);
    expect(isSupportedLegacyVersion('2026-07-28')).toBe(false);
  });
});
