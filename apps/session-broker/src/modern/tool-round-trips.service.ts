import { Injectable, Logger } from '@nestjs/common';
import { internalError, invalidParamsError } from '@mcp-platform/protocol-mcp';
import { failure, type InputRequiredOutcome, type MethodOutcome } from '../methods/method-outcome';
import { ToolMethods, type ToolMethodContext } from '../methods/tool-methods.service';
import { argumentsDigest, MAX_REQUEST_STATE_ANSWERS_BYTES, RequestStates, type RequestStateBinding, type RequestStateRefusal, type RoundState } from './request-state';

/** What the client reads when its `requestState` is refused (the log has the detail). */
const REFUSALS: Record<RequestStateRefusal, string> = {
  invalid: 'is not one this server issued, or was altered',
  expired: 'has expired; call the tool again without it',
  mismatch: 'belongs to another request',
};

/**
 * Modern `tools/call` with multi round-trip requests (S-60..S-70, §3.3.2), stateless across replicas:
 * a retry's `requestState` is opened and checked against the request (S-65, S-66); the answers of
 * earlier rounds and the retry's `inputResponses` to the keys asked last are merged (others ignored,
 * S-68) and handed to the executor, which runs the tool from the start. When the tool still needs
 * input, the answer is the requests and a freshly sealed state, without caching hints (S-70).
 */
@Injectable()
export class ToolRoundTrips {
  private readonly logger = new Logger(ToolRoundTrips.name);

  constructor(
    private readonly tools: ToolMethods,
    private readonly states: RequestStates,
  ) {}

  async callTool(context: ToolMethodContext): Promise<MethodOutcome | InputRequiredOutcome> {
    const { params, requestId } = context;
    const name = params?.['name'];
    const args = params?.['arguments'];
    // A malformed name or arguments: the shared checks of tools/call answer it.
    if (typeof name !== 'string' || (args !== undefined && !isPlainObject(args))) return this.tools.callTool(context);
    const inputResponses = params?.['inputResponses'];
    if (inputResponses !== undefined && !isPlainObject(inputResponses)) return failure(invalidParamsError(requestId, 'Invalid params: inputResponses must be an object'));
    const requestState = params?.['requestState'];
    if (requestState !== undefined && typeof requestState !== 'string') return failure(invalidParamsError(requestId, 'Invalid params: requestState must be a string'));

    const binding = bindingOf(context, name, args);
    let answers: Record<string, unknown> = {};
    if (requestState !== undefined) {
      const opened = await this.states.open(requestState, binding);
      if ('refused' in opened) {
        this.logger.warn(`tools/call ${binding.server}/${name}: requestState of ${binding.principal.subject} refused: ${opened.detail}`);
        return failure(invalidParamsError(requestId, `Invalid params: requestState ${REFUSALS[opened.refused]}`));
      }
      answers = mergeAnswers(opened.state, inputResponses ?? {});
    }
    // Bounded: the answers travel in every later round's state, and to the executor over the bus.
    const answersBytes = Buffer.byteLength(JSON.stringify(answers));
    if (answersBytes > MAX_REQUEST_STATE_ANSWERS_BYTES) {
      this.logger.warn(`tools/call ${binding.server}/${name}: ${answersBytes} bytes of answers, more than ${MAX_REQUEST_STATE_ANSWERS_BYTES}`);
      return failure(
        internalError(requestId, `Internal error: the answers to this call's input requests exceed ${MAX_REQUEST_STATE_ANSWERS_BYTES} bytes, more than the server carries between rounds`),
      );
    }

    const outcome = await this.tools.callToolWithInput(context, answers);
    if (outcome.kind !== 'input_required') return outcome;
    const next: RoundState = { answers, asked: Object.keys(outcome.inputRequests) };
    return { ...outcome, requestState: await this.states.seal(binding, next) };
  }
}

/** The answers for the next run: the earlier rounds' and this retry's answers to the keys asked last (S-68: others ignored). */
function mergeAnswers(state: RoundState, inputResponses: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...state.answers };
  for (const key of state.asked) {
    if (Object.hasOwn(inputResponses, key)) merged[key] = inputResponses[key];
  }
  return merged;
}

function bindingOf(context: ToolMethodContext, name: string, args: Record<string, unknown> | undefined): RequestStateBinding {
  const { principal, virtualServer } = context;
  return {
    principal: {
      subject: principal.subject,
      tenant: principal.tenant,
      ...(principal.clientId === undefined ? {} : { clientId: principal.clientId }),
      anonymous: principal.anonymous,
    },
    server: `${virtualServer.tenant}/${virtualServer.name}`,
    method: 'tools/call',
    name,
    argumentsDigest: argumentsDigest(args),
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
