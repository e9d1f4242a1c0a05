import { z } from 'zod';

/** The methods a request's handler may ask the client: sampling (S-331), elicitation (S-316), roots (S-340). */
export const ClientRequestMethodSchema = z.enum(['sampling/createMessage', 'elicitation/create', 'roots/list']);
export type ClientRequestMethod = z.infer<typeof ClientRequestMethodSchema>;

/** One request a modern request needs its client to answer before it can go on (an `inputRequests` entry, S-63). */
export const InputRequestSchema = z.strictObject({
  method: ClientRequestMethodSchema,
  params: z.record(z.string(), z.unknown()).optional(),
});
export type InputRequest = z.infer<typeof InputRequestSchema>;

/** The most a continuation may weigh, as JSON: it travels sealed in the client's `requestState`. */
export const MAX_CONTINUATION_BYTES = 64 * 1024;

/**
 * What the owner of a request needs again on its retry besides the answers: an upstream server's own
 * `requestState`, say, or the pending upstream request it names. Opaque to the broker, which seals it
 * into the `requestState` it gives the client (so nobody else reads or alters it) and hands it back as
 * `continuation` with the retry; bounded by {@link MAX_CONTINUATION_BYTES}.
 */
export const ContinuationSchema = z
  .record(z.string(), z.unknown())
  .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= MAX_CONTINUATION_BYTES, `at most ${MAX_CONTINUATION_BYTES} bytes as JSON`);
export type Continuation = z.infer<typeof ContinuationSchema>;

/**
 * What the owner of a modern `tools/call`, `prompts/get` or `resources/read` answers instead of a
 * result when it asked the client something not yet answered (S-60): the requests by input key,
 * unique within the request (S-63), and what it needs on the retry ({@link ContinuationSchema}). The
 * broker turns it into an `InputRequiredResult` with a sealed `requestState`; the client retries with
 * the answers.
 */
export const InputRequiredSchema = z.strictObject({
  inputRequired: z.strictObject({
    inputRequests: z
      .record(z.string().min(1).max(256), InputRequestSchema)
      .refine((requests) => Object.keys(requests).length > 0, 'at least one input request'),
    continuation: ContinuationSchema.optional(),
  }),
});
export type InputRequired = z.infer<typeof InputRequiredSchema>;

/** Whether an owner's answer asks for input rather than carrying the result. */
export function isInputRequired(response: object): response is InputRequired {
  return Object.hasOwn(response, 'inputRequired');
}
