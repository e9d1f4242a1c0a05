import { describe, expect, it } from 'vitest';
import { type HttpAnswer, mapHttpAnswer } from './http-answer.mapper';

const answer = (overrides: Partial<HttpAnswer>): HttpAnswer => ({ status: 200, contentType: 'application/json', body: '{}', truncated: false, ...overrides });

describe(mapHttpAnswer, () => {
  it('passes a CallToolResult-shaped body through', () => {
    const body = JSON.stringify({ content: [{ type: 'text', text: 'hi' }], isError: false });
    expect(mapHttpAnswer(answer({ body }), 1024).result).toEqual({ content: [{ type: 'text', text: 'hi' }], isError: false });
  });

  it('refuses a malformed CallToolResult-shaped body', () => {
    const body = JSON.stringify({ content: [{ type: 'nonsense' }] });
    expect(mapHttpAnswer(answer({ body }), 1024)).toMatchObject({
      failure: { kind: 'malformed' },
      result: { isError: true, content: [{ text: expect.stringContaining('malformed') }] },
    });
  });

  it('turns other JSON objects into structured content with a text block', () => {
    expect(mapHttpAnswer(answer({ body: '{"temperature":21}' }), 1024).result).toEqual({
      content: [{ type: 'text', text: '{"temperature":21}' }],
      structuredContent: { temperature: 21 },
    });
  });

  it('turns a JSON array into text only', () => {
    expect(mapHttpAnswer(answer({ body: '[1,2]' }), 1024).result).toEqual({ content: [{ type: 'text', text: '[1,2]' }] });
  });

  it('passes plain text through as a text block', () => {
    expect(mapHttpAnswer(answer({ contentType: 'text/plain; charset=utf-8', body: 'sunny' }), 1024).result).toEqual({
      content: [{ type: 'text', text: 'sunny' }],
    });
  });

  it('answers a non-2xx status with an error result and an excerpt', () => {
    const { result, failure } = mapHttpAnswer(answer({ status: 503, contentType: 'text/plain', body: 'x'.repeat(1000) }), 1024);
    expect(result.isError).toBe(true);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toMatch(/^The tool endpoint answered HTTP 503: x+…$/);
    expect(text.length).toBeLessThan(400);
    expect(failure).toEqual({ kind: 'status', detail: text });
  });

  it('answers a redirect as an error (redirects are not followed)', () => {
    expect(mapHttpAnswer(answer({ status: 302, body: '' }), 1024).result).toEqual({
      content: [{ type: 'text', text: 'The tool endpoint answered HTTP 302' }],
      isError: true,
    });
  });

  it('refuses an answer larger than the cap', () => {
    expect(mapHttpAnswer(answer({ truncated: true }), 1024)).toMatchObject({
      failure: { kind: 'too_large' },
      result: { isError: true, content: [{ text: expect.stringContaining('1024 bytes') }] },
    });
  });

  // The rows of the README's answer table (apps/tool-executor/README.md, HTTP tools) not covered above.
  it('passes isError, structuredContent and _meta of a CallToolResult-shaped body through', () => {
    const body = JSON.stringify({
      content: [{ type: 'text', text: 'no such city' }],
      structuredContent: { city: null },
      isError: true,
      _meta: { 'com.example/trace': 't-1' },
    });
    expect(mapHttpAnswer(answer({ body }), 1024)).toEqual({
      result: { content: [{ type: 'text', text: 'no such city' }], structuredContent: { city: null }, isError: true, _meta: { 'com.example/trace': 't-1' } },
    });
  });

  it('reads any +json media type as JSON', () => {
    expect(mapHttpAnswer(answer({ contentType: 'application/vnd.example+json; charset=utf-8', body: '{"a":1}' }), 1024).result).toEqual({
      content: [{ type: 'text', text: '{"a":1}' }],
      structuredContent: { a: 1 },
    });
  });

  it('turns JSON strings and numbers into their JSON as text', () => {
    expect(mapHttpAnswer(answer({ body: '"sunny"' }), 1024).result).toEqual({ content: [{ type: 'text', text: '"sunny"' }] });
    expect(mapHttpAnswer(answer({ body: '21.5' }), 1024).result).toEqual({ content: [{ type: 'text', text: '21.5' }] });
  });

  it('passes a JSON media type whose body does not parse through as text', () => {
    expect(mapHttpAnswer(answer({ body: '{"unterminated' }), 1024)).toEqual({ result: { content: [{ type: 'text', text: '{"unterminated' }] } });
  });

  it('reads JSON sent as text/plain or HTML as text, not as structured content', () => {
    expect(mapHttpAnswer(answer({ contentType: 'text/plain', body: '{"a":1}' }), 1024).result).toEqual({ content: [{ type: 'text', text: '{"a":1}' }] });
    expect(mapHttpAnswer(answer({ contentType: 'text/html', body: '<p>hi</p>' }), 1024).result).toEqual({ content: [{ type: 'text', text: '<p>hi</p>' }] });
  });

  it('answers an empty 204 with one empty text block, and records nothing', () => {
    expect(mapHttpAnswer(answer({ status: 204, contentType: undefined, body: '' }), 1024)).toEqual({ result: { content: [{ type: 'text', text: '' }] } });
  });
});
