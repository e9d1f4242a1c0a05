import { describe, expect, it } from 'vitest';
import { CalculatorError, evaluateExpression } from './calculator';

describe(evaluateExpression, () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 / 4', 2.5],
    ['10 % 4', 2],
    ['2 ^ 3 ^ 2', 512],
    ['-2 ^ 2', -4],
    ['--3', 3],
    ['1.5e2 + .5', 150.5],
    ['sqrt(16) + abs(-2)', 6],
    ['max(1, 7, 3) - min(4, 2)', 5],
    ['round(pi * 100) / 100', 3.14],
    ['  42  ', 42],
  ])('evaluates %s to %d', (expression, expected) => {
    expect(evaluateExpression(expression)).toBeCloseTo(expected, 10);
  });

  it.each([
    ['1 / 0', /division by zero/],
    ['2 +', /unexpected end/],
    ['(1 + 2', /expected "\)"/],
    ['1 2', /unexpected "2"/],
    ['process.exit(1)', /unexpected character "."|unknown/],
    ['constructor', /unknown name/],
    ['constructor(1)', /unknown function/],
    ['foo(1)', /unknown function/],
    ['', /empty expression/],
    ['10 ^ 400', /not a finite number/],
    ['1; 2', /unexpected character ";"/],
  ])('refuses %s', (expression, message) => {
    expect(() => evaluateExpression(expression)).toThrow(CalculatorError);
    expect(() => evaluateExpression(expression)).toThrow(message);
  });

  it('refuses expressions nested too deeply', () => {
    expect(() => evaluateExpression(`${'('.repeat(100)}1${')'.repeat(100)}`)).toThrow(/nested deeper/);
  });

  it('refuses overly long expressions', () => {
    expect(() => evaluateExpression('1+'.repeat(600) + '1')).toThrow(/longer than/);
  });
});
