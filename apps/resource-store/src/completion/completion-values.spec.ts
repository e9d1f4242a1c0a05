import { describe, expect, it } from 'vitest';
import { completeFrom, MAX_COMPLETION_VALUES, rankCompletions } from './completion-values';

describe('completeFrom', () => {
  it('keeps the values starting with the prefix, case-insensitively, exact case first', () => {
    expect(completeFrom(['Python', 'typescript', 'TypeScript', 'rust'], 'Ty')).toEqual({ values: ['TypeScript', 'typescript'], total: 2, hasMore: false });
  });

  it('offers everything for an empty prefix', () => {
    expect(completeFrom(['a', 'b'], '').values).toEqual(['a', 'b']);
  });

  it('answers no values without a source', () => {
    expect(completeFrom(undefined, 'x')).toEqual({ values: [], total: 0, hasMore: false });
  });

  it('caps the values at 100 and says there are more', () => {
    const many = Array.from({ length: 250 }, (_, index) => `v${index}`);
    const completion = completeFrom(many, 'v');
    expect(completion.values).toHaveLength(MAX_COMPLETION_VALUES);
    expect(completion).toMatchObject({ total: 250, hasMore: true });
  });

  describe('with a source that depends on an earlier argument', () => {
    const source = { dependsOn: 'language', byValue: { typescript: ['nestjs', 'next'], python: ['django', 'numpy'] } };

    it('uses the list of the value given in the context', () => {
      expect(completeFrom(source, 'n', { language: 'python' }).values).toEqual(['numpy']);
    });

    it('uses every list when the context does not name the argument', () => {
      expect(completeFrom(source, 'n').values).toEqual(['nestjs', 'next', 'numpy']);
    });

    it('answers nothing for a value with no list', () => {
      expect(completeFrom(source, '', { language: 'cobol' }).values).toEqual([]);
    });
  });
});

describe('rankCompletions', () => {
  it('keeps the first occurrence of a duplicate in its place', () => {
    expect(rankCompletions(['b', 'a', 'b'], '')).toEqual({ values: ['b', 'a'], total: 2, hasMore: false });
  });

  it('leaves the total out and says there are more when the candidates are not exhaustive', () => {
    expect(rankCompletions(['guides'], 'g', { exhaustive: false })).toEqual({ values: ['guides'], hasMore: true });
  });
});
