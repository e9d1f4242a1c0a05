import { describe, expect, it } from 'vitest';
import { fillTextRecipe, isJsonMimeType } from './text-recipe';

describe('fillTextRecipe', () => {
  const recipe = '{"id":"{id}","templateTest":true,"data":"Data for ID: {id}"}';

  it('fills every occurrence of a variable', () => {
    expect(fillTextRecipe(recipe, { id: '123' }, 'application/json')).toBe('{"id":"123","templateTest":true,"data":"Data for ID: 123"}');
  });

  it('JSON-escapes values when the type is JSON, so the document stays valid', () => {
    const text = fillTextRecipe(recipe, { id: 'a"b\\c\n' }, 'application/json; charset=utf-8');
    expect(JSON.parse(text)).toEqual({ id: 'a"b\\c\n', templateTest: true, data: 'Data for ID: a"b\\c\n' });
  });

  it('leaves values as they are for other types', () => {
    expect(fillTextRecipe('Notes on {topic}', { topic: 'a"b' }, 'text/markdown')).toBe('Notes on a"b');
  });

  it('leaves placeholders naming no variable alone', () => {
    expect(fillTextRecipe('{known} {other}', { known: 'x' }, undefined)).toBe('x {other}');
  });
});

describe('isJsonMimeType', () => {
  it.each([
    ['application/json', true],
    ['application/ld+json', true],
    ['APPLICATION/JSON; charset=utf-8', true],
    ['text/plain', false],
    [undefined, false],
  ])('%s → %s', (mimeType, expected) => {
    expect(isJsonMimeType(mimeType)).toBe(expected);
  });
});
