import type { GetPromptResult } from '@mcp-platform/protocol-mcp';
import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import type { PromptArgumentDefinition, PromptMessageDefinition } from '../store/store.types';

/** What rendering needs of a stored prompt. */
export interface RenderablePrompt {
  name: string;
  description: string;
  arguments: PromptArgumentDefinition[];
  messages: PromptMessageDefinition[];
}

/** `{{#name}}…{{/name}}`: a part of a text that exists only when the argument is given (same name at both ends, not nested). */
const SECTION = /\{\{#\s*([A-Za-z0-9_.-]+)\s*\}\}([\s\S]*?)\{\{\/\s*\1\s*\}\}/g;
/** `{{name}}`: the argument's value. */
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

/**
 * Renders `prompts/get` (S-219, S-220): `{{arg}}` in texts and in an embedded resource's URI and
 * text becomes the argument's value (an optional argument not given becomes empty), and a section
 * `{{#arg}}…{{/arg}}` is kept only when the argument is given and not empty, so an optional argument
 * can bring its own words and punctuation (`text{{#length}} ({{length}}){{/length}}:` reads `text:`
 * without it, not `text ():`). Placeholders and sections of names the prompt does not declare stay
 * as written. A missing required argument is `INVALID_PARAMS` (S-221 → -32602), named in `data.missing`.
 */
export function renderPrompt(prompt: RenderablePrompt, given: Record<string, string> = {}): GetPromptResult {
  const missing = prompt.arguments.filter((argument) => argument.required && given[argument.name] === undefined).map((argument) => argument.name);
  if (missing.length) throw new RpcError(WireErrorCode.InvalidParams, `Prompt ${prompt.name} requires argument(s) ${missing.join(', ')}`, { missing });
  const known = new Set(prompt.arguments.map((argument) => argument.name));
  const fill = (text: string): string =>
    text
      .replace(SECTION, (section, name: string, body: string) => (known.has(name) ? (given[name] ? body : '') : section))
      .replace(PLACEHOLDER, (placeholder, name: string) => (known.has(name) ? (given[name] ?? '') : placeholder));
  return {
    description: prompt.description,
    messages: prompt.messages.map((message) => {
      const content = message.content;
      switch (content.type) {
        case 'text':
          return { role: message.role, content: { type: 'text', text: fill(content.text) } };
        case 'image':
          return { role: message.role, content: { type: 'image', data: content.data, mimeType: content.mimeType } };
        case 'resource':
          return {
            role: message.role,
            content: {
              type: 'resource',
              resource: {
                uri: fill(content.resource.uri),
                ...(content.resource.mimeType ? { mimeType: content.resource.mimeType } : {}),
                text: fill(content.resource.text),
              },
            },
          };
      }
    }),
  };
}
