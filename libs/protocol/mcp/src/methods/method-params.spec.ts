import { describe, expect, it } from 'vitest';
import { CallToolParamsSchema, describeParamsProblem, GetPromptParamsSchema, ListParamsSchema, MAX_CURSOR_LENGTH, TaskIdParamsSchema } from './method-params';

const problem = (schema: { safeParse(value: unknown): { success: boolean; error?: unknown } }, value: unknown): string => {
  const parsed = schema.safeParse(value);
  if (parsed.success) throw new Error('the params were accepted');
  return describeParamsProblem(parsed.error as never);
};

describe('method params', () => {
  it('parses tools/call once into its command, dropping fields it does not know (S-68)', () => {
    expect(
      CallToolParamsSchema.parse({ name: 'calc', arguments: { a: 1 }, task: { ttl: 5 }, inputResponses: { k: 1 }, requestState: 's', extra: true }),
    ).toEqual({
      name: 'calc',
      arguments: { a: 1 },
      task: { ttl: 5 },
      inputResponses: { k: 1 },
      requestState: 's',
    });
  });

  it.each([
    [{ name: '' }, 'Invalid params: name must be a non-empty string'],
    [{ name: 42 }, 'Invalid params: name must be a non-empty string'],
    [{ name: 't', arguments: [] }, 'Invalid params: arguments must be an object'],
    [{ name: 't', _meta: { progressToken: 1.5 } }, 'Invalid params: _meta.progressToken must be a string or an integer'],
    [{ name: 't', task: { ttl: -1 } }, 'Invalid params: task.ttl must be a non-negative integer of milliseconds'],
    [{ name: 't', inputResponses: [] }, 'Invalid params: inputResponses must be an object'],
    [{ name: 't', requestState: 42 }, 'Invalid params: requestState must be a string'],
  ])('refuses tools/call params %j: %s', (params, message) => {
    expect(problem(CallToolParamsSchema, params)).toBe(message);
  });

  it('bounds cursors (S-243) and task ids, and keeps prompt arguments a string map (S-219)', () => {
    expect(problem(ListParamsSchema, { cursor: 'A'.repeat(MAX_CURSOR_LENGTH + 1) })).toBe(
      `Invalid params: cursor must be a string of at most ${MAX_CURSOR_LENGTH} characters`,
    );
    expect(problem(ListParamsSchema, { cursor: 3 })).toBe('Invalid params: cursor must be a string');
    expect(problem(TaskIdParamsSchema, { taskId: 'x'.repeat(129) })).toBe('Invalid params: taskId must be a non-empty string');
    expect(problem(GetPromptParamsSchema, { name: 'p', arguments: { a: 1 } })).toBe('Invalid params: arguments must map names to strings');
  });
});
