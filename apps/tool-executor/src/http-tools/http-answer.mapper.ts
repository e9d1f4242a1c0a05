import type { toolExecutor } from '@mcp-platform/protocol-contracts';
import { type CallToolResult, CallToolResultSchema } from '@mcp-platform/protocol-mcp';

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

/** A tool result, and when the endpoint's answer was a failure, what to record of it for the tool's administrators. */
export interface MappedAnswer {
  result: CallToolResult;
  failure?: { kind: Extract<toolExecutor.ToolFailureKind, 'status' | 'too_large' | 'malformed'>; detail: string };
}

/**
 * Turns an endpoint's answer into a tool result:
 * - a body over the cap → an `isError` result (the body is discarded);
 * - non-2xx → an `isError` result with the status and a short body excerpt;
 * - a JSON body (`application/json` or a `+json` type) shaped like a CallToolResult (an object with a
 *   `content` array) → validated and passed through, or an `isError` result when it is malformed;
 * - any other JSON object → `structuredContent` plus its JSON as a text block; other JSON (an array,
 *   a number…) → its JSON as a text block;
 * - anything else (text, HTML, a JSON type whose body does not parse, an empty body) → one text block.
 * The caller sees these texts: they describe the endpoint's own answer, never the executor's network.
 */
export function mapHttpAnswer(answer: HttpAnswer, maxBytes: number): MappedAnswer {
  if (answer.truncated) {
    const text = `The tool endpoint's answer exceeded ${maxBytes} bytes and was discarded.`;
    return { result: errorResult(text), failure: { kind: 'too_large', detail: text } };
  }
  if (answer.status < 200 || answer.status > 299) {
    const excerpt = answer.body.slice(0, EXCERPT_CHARS).trim();
    const text = `The tool endpoint answered HTTP ${answer.status}${excerpt ? `: ${excerpt}${answer.body.length > EXCERPT_CHARS ? '…' : ''}` : ''}`;
    return { result: errorResult(text), failure: { kind: 'status', detail: text } };
  }
  const json = /\bjson\b|\+json\b/i.test(answer.contentType ?? '') ? parseJson(answer.body) : undefined;
  if (json === undefined) return { result: { content: [{ type: 'text', text: answer.body }] } };
  if (json.value !== null && typeof json.value === 'object' && !Array.isArray(json.value) && Array.isArray((json.value as { content?: unknown }).content)) {
    const parsed = CallToolResultSchema.safeParse(json.value);
    if (!parsed.success) {
      const text = `The tool endpoint returned a malformed tool result: ${parsed.error.issues[0]?.message ?? 'invalid'}`;
      return { result: errorResult(text), failure: { kind: 'malformed', detail: text } };
    }
    return { result: parsed.data };
  }
  const text = JSON.stringify(json.value);
  if (json.value !== null && typeof json.value === 'object' && !Array.isArray(json.value)) {
    return { result: { content: [{ type: 'text', text }], structuredContent: json.value as Record<string, unknown> } };
  }
  return { result: { content: [{ type: 'text', text }] } };
}

function parseJson(body: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(body) as unknown };
  } catch {
    return undefined;
  }
}
