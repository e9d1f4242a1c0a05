import { describe, expect, it } from 'vitest';
import { describeScopes, PLATFORM_SCOPE_DESCRIPTIONS } from './scope-descriptions';

describe(describeScopes, () => {
  it('gives the platform’s scopes their fixed words, whatever a tenant wrote', () => {
    const [mcp] = describeScopes(['mcp'], new Map([['mcp', 'Tenant words']]));
    expect(mcp).toEqual({ scope: 'mcp', description: PLATFORM_SCOPE_DESCRIPTIONS.get('mcp') });
  });

  it('gives a tenant scope the words of its administrators, and any other scope a generic sentence naming it', () => {
    expect(describeScopes(['demo:crypto', 'files:write'], new Map([['demo:crypto', 'Hash text.']]))).toEqual([
      { scope: 'demo:crypto', description: 'Hash text.' },
      { scope: 'files:write', description: expect.stringContaining('“files:write”') },
    ]);
  });
});
