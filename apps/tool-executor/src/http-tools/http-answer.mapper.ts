import { CallToolResultSchema, type CallToolResult } from '@mcp-platform/protocol-mcp';

/** What an HTTP tool endpoint answered, body already read (and capped). */
export interface HttpAnswer {
  status: number;
  contentType: string | undefined;
  body: string;
  /** The body was larger than the cap and was cut. */
  truncated: boolean;
}

const EXCERPT_CHARS = 300;

const errorResult = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

/**
 * Turns an endpoint's answer into a tool result:
 * - non-2xx → an `isError` result with the status and a short body excerpt;
 * - a JSON body shaped like a CallToolResult (it has a `content` array) → validated and passed through;
 * - any other JSON → `structuredContent` when it is an object, plus its JSON as a text block;
 * - anything else → one text block.
 */
export function mapHttpAnswer(answer: HttpAnswer, maxBytes: number): CallToolResult {
  if (answer.truncated) return errorResult(`The tool endpoint's answer exceeded ${maxBytes} bytes and was discarded.`);
  if (answer.status < 200 || answer.status > 299) {
    const excerpt = answer.body.slice(0, EXCERPT_CHARS).trim();
    return errorResult(`The tool endpoint answered HTTP ${answer.status}${excerpt ? `: ${excerpt}${answer.body.length > EXCERPT_CHARS ? '…' : ''}` : ''}`);
  }
  const json = /\bjson\b|\+json\b/i.test(answer.contentType ?? '') ? parseJson(answer.body) : undefined;
  if (json === undefined) return { content: [{ type: 'text', text: answer.body }] };
  if (json.value !== null && typeof json.value === 'object' && !Array.isArray(json.value) && Array.isArray((json.value as { content?: unknown }).content)) {
    const parsed = CallToolResultSchema.safeParse(json.value);
    if (!parsed.success) return errorResult(`The tool endpoint returned a malformed tool result: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    return parsed.data;
  }
  const text = JSON.stringify(json.value);
  if (json.value !== null && typeof json.value === 'object' && !Array.isArray(json.value)) {
    return { content: [{ type: 'text', text }], structuredContent: json.value as Record<string, unknown> };
  }
  return { content: [{ type: 'text', text }] };
}

function parseJson(body: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(body) as unknown };
  } catch {
    return undefined;
  }
}
