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

  it('refuses a value that is not valid percent-encoding', () => {
    expect(matchUriTemplate(template, 'test://template/%E0%A4%A/data')).toBeUndefined();
  });
});
