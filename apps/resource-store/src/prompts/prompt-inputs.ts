import type { InputRequest, InputRequired } from '@mcp-platform/protocol-contracts';
import { ElicitResultSchema, isPlainObject } from '@mcp-platform/protocol-mcp';
import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import type { PromptInputDefinition } from '../store/store.types';

/** What `prompts/get` brings to a prompt's inputs. */
export interface PromptInputsRequest {
  asksByResult?: boolean | undefined;
  clientCapabilities?: Record<string, unknown> | undefined;
  inputResponses?: Record<string, unknown> | undefined;
}

/**
 * A prompt's inputs against a request (SEP-2322 on `prompts/get`, S-60): every input the answers do
 * not cover is asked (`{ inputRequired }`, one form elicitation per input key) of a request that can
 * ask by result and whose client declared `elicitation` (else `-32021` naming it, S-38); answered, the
 * accepted answers' fields as `key.field` → text, for rendering. A request that cannot ask (a 2025-era
 * session) renders with the inputs unanswered. An answer that is not an elicitation result is
 * `INVALID_PARAMS`; the fields of an accepted one are the schema's only (others are ignored, S-68).
 */
export function promptAnswers(
  prompt: { name: string; inputs: PromptInputDefinition[] },
  request: PromptInputsRequest,
): InputRequired | { values: Record<string, string> } {
  const responses = request.inputResponses ?? {};
  const values: Record<string, string> = {};
  const asked: Record<string, InputRequest> = {};
  for (const input of prompt.inputs) {
    if (!Object.hasOwn(responses, input.key)) {
      if (request.asksByResult) asked[input.key] = { method: 'elicitation/create', params: { message: input.message, requestedSchema: input.requestedSchema } };
      continue;
    }
    const answer = ElicitResultSchema.safeParse(responses[input.key]);
    if (!answer.success)
      throw new RpcError(
        WireErrorCode.InvalidParams,
        `inputResponses.${input.key} is not an elicitation result: ${answer.error.issues[0]?.message ?? 'invalid'}`,
      );
    if (answer.data.action !== 'accept') continue;
    for (const field of Object.keys(input.requestedSchema.properties)) {
      const value = answer.data.content?.[field];
      if (value !== undefined && value !== null) values[`${input.key}.${field}`] = Array.isArray(value) ? value.join(', ') : String(value);
    }
  }
  if (Object.keys(asked).length === 0) return { values };
  if (!isPlainObject(request.clientCapabilities?.['elicitation'])) {
    throw new RpcError(WireErrorCode.MissingClientCapability, `Prompt ${prompt.name} asks the user for input: declare the elicitation capability`, {
      requiredCapabilities: { elicitation: {} },
    });
  }
  return { inputRequired: { inputRequests: asked } };
}
