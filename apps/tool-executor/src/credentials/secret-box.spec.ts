import { describe, expect, it } from 'vitest';
import { SecretBox, SecretBoxError } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox('operator key of at least some length');

  it('opens what it sealed, and the sealed form does not contain the secret', () => {
    const sealed = box.seal('Bearer s3cr3t-value', 'demo/github/header:authorization');
    expect(JSON.stringify(sealed)).not.toContain('s3cr3t');
    expect(box.open(sealed, 'demo/github/header:authorization')).toBe('Bearer s3cr3t-value');
  });

  it('refuses a sealed value moved to another context or opened under another key', () => {
    const sealed = box.seal('value', 'demo/a/header:x');
    expect(() => box.open(sealed, 'other/a/header:x')).toThrow(SecretBoxError);
    expect(() => new SecretBox('another key').open(sealed, 'demo/a/header:x')).toThrow(/not the key it was sealed with/);
  });

  it('stores nothing secret without a key, and says which setting is missing', () => {
    const keyless = new SecretBox(undefined);
    expect(keyless.configured).toBe(false);
    expect(() => keyless.seal('value', 'ctx')).toThrow(/TOOL_SECRETS_KEY/);
  });
});
