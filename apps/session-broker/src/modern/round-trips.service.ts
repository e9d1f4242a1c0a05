import { Injectable, Logger } from '@nestjs/common';
import { internalError, invalidParamsError, type ParamsOf } from '@mcp-platform/protocol-mcp';
import { MethodTable } from '../methods/method-table';
import type { MethodCall } from '../requests/method-call';
import { failure, type MethodOutcome } from '../requests/method-outcome';
import {
  argumentsDigest,
  MAX_REQUEST_STATE_ANSWERS_BYTES,
  type RequestStateBinding,
  type RequestStateRefusal,
  RequestStates,
  type RoundState,
} from './request-state';

/** The requests whose handlers may ask the client for input by result (S-60: any request may). */
export type RoundTripMethod = 'tools/call' | 'prompts/get' | 'resources/read';
export const ROUND_TRIP_METHODS: ReadonlySet<string> = new Set<RoundTripMethod>(['tools/call', 'prompts/get', 'resources/read']);

/** What the client reads when its `requestState` is refused (the log has the detail). */
const REFUSALS: Record<RequestStateRefusal, string> = {
  invalid: 'is not one this server issued, or was altered',
  expired: 'has expired; send the request again without it',
  mismatch: 'belongs to another request',
};

/**
 * Multi round-trip requests (S-60..S-70, §3.3.2), stateless across replicas, for every method whose
 * handler may need the client's input: a retry's `requestState` is opened and checked against the
 * request (S-65, S-66); the answers of earlier rounds and the retry's `inputResponses` to the keys asked
 * last are merged (others ignored, S-68) and handed to the handler, which runs from the start, with the
 * continuation its last round asked to get back. A request without a state hands its `inputResponses` as
 * they are (the handler uses those it asks). When it still needs input, the answer is the requests and a
 * freshly sealed state (holding the new continuation), without caching hints (S-70).
 */
@Injectable()
export class RoundTrips {
  private readonly logger = new Logger(RoundTrips.name);

  constructor(
    private readonly table: MethodTable,
    private readonly states: RequestStates,
  ) {}

  async run<M extends RoundTripMethod>(method: M, command: ParamsOf<M>, call: MethodCall): Promise<MethodOutcome> {
    const binding = bindingOf(method, command, call);
    // Without a state (a first request that answers up front, or a server that never sealed one) the
    // answers stand on their own: the handler reads the keys it asks and ignores the rest (S-68).
    let answers: Record<string, unknown> = { ...(command.inputResponses ?? {}) };
    let continuation: Record<string, unknown> | undefined;
    if (command.requestState !== undefined) {
      const opened = await this.states.open(command.requestState, binding);
      if ('refused' in opened) {
        this.logger.warn(`${method} ${binding.server}/${binding.name}: requestState of ${binding.principal.subject} refused: ${opened.detail}`);
        return failure(invalidParamsError(undefined, `Invalid params: requestState ${REFUSALS[opened.refused]}`));
      }
      answers = mergeAnswers(opened.state, command.inputResponses ?? {});
      continuation = opened.state.continuation;
    }
    // Bounded: the answers travel in every later round's state, and to the data's owner over the bus.
    const answersBytes = Buffer.byteLength(JSON.stringify(answers));
    if (answersBytes > MAX_REQUEST_STATE_ANSWERS_BYTES) {
      this.logger.warn(`${method} ${binding.server}/${binding.name}: ${answersBytes} bytes of answers, more than ${MAX_REQUEST_STATE_ANSWERS_BYTES}`);
      return failure(
        internalError(
          undefined,
          `Internal error: the answers to this request's input requests exceed ${MAX_REQUEST_STATE_ANSWERS_BYTES} bytes, more than the server carries between rounds`,
        ),
      );
    }

    const outcome = await this.table.run(method, command, { ...call, inputResponses: answers, ...(continuation === undefined ? {} : { continuation }) });
    if (outcome.kind !== 'input_required') return outcome;
    const { continuation: next, ...asking } = outcome;
    const state: RoundState = { answers, asked: Object.keys(outcome.inputRequests), ...(next === undefined ? {} : { continuation: next }) };
    return { ...asking, requestState: await this.states.seal(binding, state) };
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

/** What a state is bound to: the caller, the server, the method and what it names (a tool, a prompt, a URI) with its arguments. */
function bindingOf<M extends RoundTripMethod>(method: M, command: ParamsOf<M>, call: MethodCall): RequestStateBinding {
  const { principal, virtualServer } = call;
  const named = 'uri' in command ? { name: command.uri, args: undefined } : { name: command.name, args: command.arguments };
  return {
    principal: {
      subject: principal.subject,
      tenant: principal.tenant,
      ...(principal.clientId === undefined ? {} : { clientId: principal.clientId }),
      anonymous: principal.anonymous,
    },
    server: `${virtualServer.tenant}/${virtualServer.name}`,
    method,
    name: named.name,
    argumentsDigest: argumentsDigest(named.args),
  };
}
