import { describe, expect, it } from 'vitest';
import { parseUriTemplate } from '../resources/uri-template';
import { storedUriNarrowing, storedVariableValues } from './stored-values';

const docs = parseUriTemplate('docs://{section}/{page}');
const stored = ['docs://api/auth', 'docs://guides/install', 'docs://guides/intro', 'docs://guides/nested/too-deep', 'other://guides/intro'];

describe('storedVariableValues', () => {
  it('answers each value of the variable once, in the URIs’ order, from the URIs the template matches', () => {
    expect(storedVariableValues(docs, 'section', stored)).toEqual(['api', 'guides']);
  });

  it('keeps only the URIs whose other variables have the values the context gives', () => {
    expect(storedVariableValues(docs, 'page', stored, { section: 'guides' })).toEqual(['install', 'intro']);
  });

  it('ignores the context’s value of the variable being completed and names that are not variables', () => {
    expect(storedVariableValues(docs, 'section', stored, { section: 'zzz', unrelated: 'x' })).toEqual(['api', 'guides']);
  });

  it('answers the percent-decoded value', () => {
    expect(storedVariableValues(docs, 'page', ['docs://guides/getting%20started'])).toEqual(['getting started']);
  });

  it('answers nothing when no URI matches', () => {
    expect(storedVariableValues(docs, 'page', ['docs://guides', 'notes://a/b'])).toEqual([]);
  });
});

describe('storedUriNarrowing', () => {
  it('starts with the text before the first variable and, in any case, with what was typed for the first variable', () => {
    expect(storedUriNarrowing(docs, 'section', 'Gu')).toEqual({ startsWith: 'docs://', startsWithIgnoringCase: 'docs://Gu' });
  });

  it('does not narrow by an empty typed value', () => {
    expect(storedUriNarrowing(docs, 'section', '')).toEqual({ startsWith: 'docs://' });
  });

  it('extends the exact prefix through the earlier variables the context gives', () => {
    expect(storedUriNarrowing(docs, 'page', 'in', { section: 'guides' })).toEqual({ startsWith: 'docs://guides/', startsWithIgnoringCase: 'docs://guides/in' });
  });

  it('stops at an earlier variable the context does not give', () => {
    expect(storedUriNarrowing(docs, 'page', 'in')).toEqual({ startsWith: 'docs://' });
    expect(storedUriNarrowing(docs, 'page', 'in', { page: 'intro' })).toEqual({ startsWith: 'docs://' });
  });

  it('stops before a character that a URI may carry percent-encoded', () => {
    expect(storedUriNarrowing(docs, 'section', 'a b')).toEqual({ startsWith: 'docs://', startsWithIgnoringCase: 'docs://a' });
    expect(storedUriNarrowing(docs, 'page', '', { section: 'a b' })).toEqual({ startsWith: 'docs://' });
    expect(storedUriNarrowing(docs, 'section', '%')).toEqual({ startsWith: 'docs://' });
  });

  it('keeps the literal text of a template that starts with a variable empty', () => {
    expect(storedUriNarrowing(parseUriTemplate('{scheme}://x'), 'scheme', 'ht')).toEqual({ startsWith: '', startsWithIgnoringCase: 'ht' });
  });
});
