import type { GetPromptResult } from '@mcp-platform/protocol-mcp';
import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import type { PromptArgumentDefinition, PromptInputDefinition, PromptMessageDefinition } from '../store/store.types';

/** What rendering needs of a stored prompt. */
export interface RenderablePrompt {
  name: string;
  description: string;
  arguments: PromptArgumentDefinition[];
  /** What the prompt asks the user before rendering; `{{key.field}}` in its recipes. */
  inputs?: PromptInputDefinition[];
  messages: PromptMessageDefinition[];
}

/** `{{#name}}` or `{{/name}}`: a section's opening or closing tag. */
const SECTION_TAG = /\{\{([#/])\s*([A-Za-z0-9_.-]+)\s*\}\}/g;
/** `{{name}}`: the argument's value. */
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

interface SectionTag {
  opens: boolean;
  name: string;
  start: number;
  end: number;
}

/**
 * `{{#name}}…{{/name}}`: a part of a text that exists only when the argument is given (same name at
 * both ends, not nested: the first closing tag of the name after an opening one ends it). `render`
 * answers the section's replacement from its name, its whole text and its body. One pass over the
 * tags, each closing tag looked at once: a backtracking search for each opener's closer (a lazy regex
 * with a back-reference) takes time quadratic in the openers, and a prompt of a few hundred
 * kilobytes of unclosed `{{#a}}` would stall the store for a minute at every `prompts/get`.
 */
function replaceSections(text: string, render: (name: string, section: string, body: string) => string): string {
  const tags: SectionTag[] = [...text.matchAll(SECTION_TAG)].map((match) => ({
    opens: match[1] === '#',
    name: match[2] ?? '',
    start: match.index,
    end: match.index + match[0].length,
  }));
  // Each name's closing tags in order, and how many of them lie behind the scan already.
  const closers = new Map<string, SectionTag[]>();
  for (const tag of tags) {
    if (tag.opens) continue;
    const ofName = closers.get(tag.name);
    if (ofName) ofName.push(tag);
    else closers.set(tag.name, [tag]);
  }
  const passed = new Map<string, number>();
  let output = '';
  let position = 0;
  for (const tag of tags) {
    if (!tag.opens || tag.start < position) continue;
    const ofName = closers.get(tag.name) ?? [];
    let next = passed.get(tag.name) ?? 0;
    while (next < ofName.length && (ofName[next]?.start ?? 0) < tag.end) next += 1;
    passed.set(tag.name, next);
    const closer = ofName[next];
    // No closing tag after it: the opener stays as written (and neither may any later one of its name close).
    if (closer === undefined) continue;
    output += text.slice(position, tag.start) + render(tag.name, text.slice(tag.start, closer.end), text.slice(tag.end, closer.start));
    position = closer.end;
  }
  return output + text.slice(position);
}

/**
 * The required-argument check of `prompts/get` (S-221): a required argument not given is `INVALID_PARAMS`,
 * every missing one named in `data.missing`. Also the check of an upstream prompt, from its listed arguments.
 */
export function assertRequiredArguments(
  prompt: { name: string; arguments: ReadonlyArray<{ name: string; required?: boolean | undefined }> },
  args: Record<string, string> = {},
): void {
  const missing = prompt.arguments.filter((argument) => argument.required && args[argument.name] === undefined).map((argument) => argument.name);
  if (missing.length) throw new RpcError(WireErrorCode.InvalidParams, `Prompt ${prompt.name} requires argument(s) ${missing.join(', ')}`, { missing });
}

/**
 * Renders `prompts/get` (S-219, S-220): `{{arg}}` in texts and in an embedded resource's URI and
 * text becomes the argument's value (an optional argument not given becomes empty), and a section
 * `{{#arg}}…{{/arg}}` is kept only when the argument is given and not empty, so an optional argument
 * can bring its own words and punctuation (`text{{#length}} ({{length}}){{/length}}:` reads `text:`
 * without it, not `text ():`). An input's fields (`{{key.field}}`) take the user's `answers` the same
 * way; an argument cannot stand in for them. Placeholders and sections of names the prompt does not declare stay
 * as written. A missing required argument is `INVALID_PARAMS` (S-221 → -32602), named in `data.missing`.
 */
export function renderPrompt(prompt: RenderablePrompt, args: Record<string, string> = {}, answers: Record<string, string> = {}): GetPromptResult {
  assertRequiredArguments(prompt, args);
  // An input's fields are known as `key.field`, filled from the user's answers (absent: not answered).
  const inputFields = (prompt.inputs ?? []).flatMap((input) => Object.keys(input.requestedSchema.properties).map((field) => `${input.key}.${field}`));
  const known = new Set([...prompt.arguments.map((argument) => argument.name), ...inputFields]);
  const given: Record<string, string> = { ...args };
  for (const name of inputFields) {
    const answer = answers[name];
    if (answer !== undefined) given[name] = answer;
    else delete given[name];
  }
  const fill = (text: string): string =>
    replaceSections(text, (name, section, body) => (known.has(name) ? (given[name] ? body : '') : section)).replace(PLACEHOLDER, (placeholder, name: string) =>
      known.has(name) ? (given[name] ?? '') : placeholder,
    );
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
