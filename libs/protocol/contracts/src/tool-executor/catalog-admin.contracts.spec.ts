import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolDefinitionSchema } from './catalog-admin.contracts';

describe('ToolDefinitionSchema', () => {
  it('documents the x-mcp-header rules on inputSchema for the OpenAPI document (S-117)', () => {
    const json = JSON.stringify(z.toJSONSchema(ToolDefinitionSchema, { io: 'input', unrepresentable: 'any' }));
    expect(json).toContain('x-mcp-header');
    expect(json).toContain('Mcp-Param-<Name>');
  });
});
