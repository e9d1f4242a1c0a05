/** Why an expression was refused; the message is meant for the model that wrote it. */
export class CalculatorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CalculatorError';
  }
}

const MAX_LENGTH = 1_000;
const MAX_DEPTH = 64;

// Maps, not object literals: a name like `constructor` must not reach Object.prototype.
const FUNCTIONS = new Map<string, (...values: number[]) => number>(
  Object.entries({
    sqrt: Math.sqrt,
    abs: Math.abs,
    round: Math.round,
    floor: Math.floor,
    ceil: Math.ceil,
    sin: Math.sin,
    cos: Math.cos,
    tan: Math.tan,
    ln: Math.log,
    log10: Math.log10,
    exp: Math.exp,
    min: Math.min,
    max: Math.max,
  }),
);
const CONSTANTS = new Map<string, number>([
  ['pi', Math.PI],
  ['e', Math.E],
]);

type Token = { kind: 'number'; value: number } | { kind: 'name'; value: string } | { kind: 'symbol'; value: string };

/**
 * Evaluates an arithmetic expression with a recursive-descent parser (never `eval`):
 * numbers, `+ - * / % ^` (power, right-associative), unary minus, parentheses, `pi`, `e`, and the
 * functions above. Grammar: expr = term (("+"|"-") term)*; term = unary (("*"|"/"|"%") unary)*;
 * unary = "-" unary | power; power = atom ("^" unary)?; atom = number | name | name "(" args ")" | "(" expr ")".
 */
export function evaluateExpression(expression: string): number {
  if (expression.length > MAX_LENGTH) throw new CalculatorError(`expression longer than ${MAX_LENGTH} characters`);
  const tokens = tokenize(expression);
  let position = 0;
  let depth = 0;

  const peek = (): Token | undefined => tokens[position];
  const isSymbol = (symbol: string): boolean => {
    const token = peek();
    return token?.kind === 'symbol' && token.value === symbol;
  };
  const expectSymbol = (symbol: string): void => {
    if (!isSymbol(symbol)) throw new CalculatorError(`expected "${symbol}" at token ${position + 1}`);
    position += 1;
  };
  const nested = <T>(parse: () => T): T => {
    depth += 1;
    if (depth > MAX_DEPTH) throw new CalculatorError(`expression nested deeper than ${MAX_DEPTH} levels`);
    try {
      return parse();
    } finally {
      depth -= 1;
    }
  };

  const parseExpression = (): number =>
    nested(() => {
      let value = parseTerm();
      while (isSymbol('+') || isSymbol('-')) {
        const operator = (tokens[position++] as Token).value;
        const right = parseTerm();
        value = operator === '+' ? value + right : value - right;
      }
      return value;
    });

  const parseTerm = (): number => {
    let value = parseUnary();
    while (isSymbol('*') || isSymbol('/') || isSymbol('%')) {
      const operator = (tokens[position++] as Token).value;
      const right = parseUnary();
      if ((operator === '/' || operator === '%') && right === 0) throw new CalculatorError('division by zero');
      value = operator === '*' ? value * right : operator === '/' ? value / right : value % right;
    }
    return value;
  };

  const parseUnary = (): number =>
    nested(() => {
      if (isSymbol('-')) {
        position += 1;
        return -parseUnary();
      }
      if (isSymbol('+')) {
        position += 1;
        return parseUnary();
      }
      return parsePower();
    });

  const parsePower = (): number => {
    const base = parseAtom();
    if (!isSymbol('^')) return base;
    position += 1;
    return base ** parseUnary();
  };

  const parseAtom = (): number => {
    const token = peek();
    if (!token) throw new CalculatorError('unexpected end of expression');
    if (token.kind === 'number') {
      position += 1;
      return token.value;
    }
    if (token.kind === 'symbol' && token.value === '(') {
      position += 1;
      const value = parseExpression();
      expectSymbol(')');
      return value;
    }
    if (token.kind === 'name') {
      position += 1;
      const name = token.value.toLowerCase();
      if (isSymbol('(')) {
        const fn = FUNCTIONS.get(name);
        if (!fn) throw new CalculatorError(`unknown function "${token.value}"; known: ${[...FUNCTIONS.keys()].join(', ')}`);
        position += 1;
        const args = [parseExpression()];
        while (isSymbol(',')) {
          position += 1;
          args.push(parseExpression());
        }
        expectSymbol(')');
        return fn(...args);
      }
      const constant = CONSTANTS.get(name);
      if (constant === undefined) throw new CalculatorError(`unknown name "${token.value}"; constants: pi, e`);
      return constant;
    }
    throw new CalculatorError(`unexpected "${token.value}" at token ${position + 1}`);
  };

  const value = parseExpression();
  if (position < tokens.length) throw new CalculatorError(`unexpected "${String((tokens[position] as Token).value)}" at token ${position + 1}`);
  if (!Number.isFinite(value)) throw new CalculatorError('the result is not a finite number');
  return value;
}

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s*(?:(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|([-+*/%^(),]))/y;
  let index = 0;
  while (index < expression.length) {
    if (/^\s*$/.test(expression.slice(index))) break;
    pattern.lastIndex = index;
    const match = pattern.exec(expression);
    if (!match) throw new CalculatorError(`unexpected character "${expression.slice(index).trimStart()[0]}" at position ${index + 1}`);
    index = pattern.lastIndex;
    if (match[1] !== undefined) tokens.push({ kind: 'number', value: Number(match[1]) });
    else if (match[2] !== undefined) tokens.push({ kind: 'name', value: match[2] });
    else tokens.push({ kind: 'symbol', value: match[3] as string });
  }
  if (!tokens.length) throw new CalculatorError('empty expression');
  return tokens;
}
