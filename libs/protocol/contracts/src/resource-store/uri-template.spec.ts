import { describe, expect, it } from 'vitest';
import { matchUriTemplate, parseUriTemplate } from './uri-template';

describe('parseUriTemplate', () => {
  it('collects the variables in order', () => {
    expect(parseUriTemplate('test://template/{id}/data/{part}').variables).toEqual(['id', 'part']);
  });

  it.each([
    ['no variable', 'test://static'],
    ['an operator (level 2+)', 'test://{+path}'],
    ['an explode modifier', 'test://{list*}'],
    ['a prefix modifier', 'test://{id:3}'],
    ['an unclosed brace', 'test://{id'],
    ['a stray closing brace', 'test://id}'],
    ['an empty expression', 'test://{}'],
    ['a repeated variable', 'test://{id}/{id}'],
    ['adjacent variables', 'test://{a}{b}'],
  ])('refuses %s', (_reason, source) => {
    expect(() => parseUriTemplate(source)).toThrow();
  });
});

describe('matchUriTemplate', () => {
  const template = parseUriTemplate('test://template/{id}/data');

  it('answers the values of a matching URI', () => {
    expect(matchUriTemplate(template, 'test://template/123/data')).toEqual({ id: '123' });
  });

  it('percent-decodes values', () => {
    expect(matchUriTemplate(template, 'test://template/a%20b/data')).toEqual({ id: 'a b' });
  });

  it('does not match across a path segment', () => {
    expect(matchUriTemplate(template, 'test://template/1/2/data')).toBeUndefined();
  });

  it('does not match a different literal part, or a prefix only', () => {
    expect(matchUriTemplate(template, 'test://template/123/other')).toBeUndefined();
    expect(matchUriTemplate(template, 'test://template/123/data/more')).toBeUndefined();
  });

  it('treats regular expression characters of the literal part literally', () => {
    expect(matchUriTemplate(parseUriTemplate('a.b://{x}'), 'aXb://1')).toBeUndefined();
  });

  it('gives the earlier variables the longest values that still let the rest match, as a greedy pattern would', () => {
    const repo = parseUriTemplate('repo://{owner}-{name}-{branch}');
    expect(matchUriTemplate(repo, 'repo://a-b-c-d-e')).toEqual({ owner: 'a-b-c', name: 'd', branch: 'e' });
    expect(matchUriTemplate(repo, 'repo://a-b')).toBeUndefined();
    expect(matchUriTemplate(repo, 'repo://a--b')).toBeUndefined();
    expect(matchUriTemplate(parseUriTemplate('{scheme}://x/{id}'), 'web://x/7')).toEqual({ scheme: 'web', id: '7' });
    expect(matchUriTemplate(parseUriTemplate('v://{a}.{b}/'), 'v://1.2.3/')).toEqual({ a: '1.2', b: '3' });
  });

  it('answers a URI of 2,000 separators against a template of six variables in one pass: a caller must not stall the store', () => {
    // A backtracking pattern (([^/?#]+)-){6} tries every split of the separators: years, with the
    // store's event loop stalled for every tenant; one pass over the URI per variable takes milliseconds.
    const ambiguous = parseUriTemplate('x://{a}-{b}-{c}-{d}-{e}-{f}');
    expect(matchUriTemplate(ambiguous, `x://${'-'.repeat(2_000)}/`)).toBeUndefined();
    // Dashes are values too: the earlier variables take all but the last few.
    expect(matchUriTemplate(ambiguous, `x://${'-'.repeat(2_000)}`)).toEqual({ a: '-'.repeat(1_990), b: '-', c: '-', d: '-', e: '-', f: '-' });
    expect(matchUriTemplate(ambiguous, `x://${'1-'.repeat(1_000)}1`)).toMatchObject({ a: expect.stringMatching(/^1(-1)+$/), f: '1' });
  }, 10_000);

  it('refuses a value that is not valid percent-encoding', () => {
    expect(matchUriTemplate(template, 'test://template/%E0%A4%A/data')).toBeUndefined();
  });
});
