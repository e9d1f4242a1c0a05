import { describe, expect, it } from 'vitest';
import { likePrefixPattern } from './like-pattern';

describe('likePrefixPattern', () => {
  it('matches anything after the prefix', () => {
    expect(likePrefixPattern('docs://')).toBe('docs://%');
  });

  it('escapes the pattern characters and the escape character of the prefix', () => {
    expect(likePrefixPattern('a%b_c\\d')).toBe('a\\%b\\_c\\\\d%');
  });

  it('matches everything for an empty prefix', () => {
    expect(likePrefixPattern('')).toBe('%');
  });
});
