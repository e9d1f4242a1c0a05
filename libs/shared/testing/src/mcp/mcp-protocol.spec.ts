import { describe, expect, it } from 'vitest';
import { toolResultText } from './mcp-protocol';

describe(toolResultText, () => {
  it('joins the text blocks of a tool result with newlines, skipping other block types', () => {
    const result = {
      content: [
        { type: 'text', text: 'first' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'text', text: 'second' },
      ],
    };
    expect(toolResultText(result)).toBe('first\nsecond');
  });

  it('answers an empty string for a result without text content, or no result at all', () => {
    expect(toolResultText({ content: [] })).toBe('');
    expect(toolResultText({ structuredContent: { result: 2 } })).toBe('');
    expect(toolResultText(undefined)).toBe('');
    expect(toolResultText({ content: [{ type: 'text' }] })).toBe('');
  });
});
