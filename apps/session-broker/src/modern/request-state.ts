import { createHash } from 'node:crypto';
import type * as Jose from 'jose' with { 'resolution-mode': 'import' };
import { z } from 'zod';
import type { RequestStateKey } from '../config/request-state-keys';

/** How long a sealed request state is accepted after it was issued (S-66: a short expiry). */
export const REQUEST_STATE_TTL_MS = 10 * 60_000;

/** The most the answers gathered for one call may weigh, as JSON (they travel in every round's state). */
export const MAX_REQUEST_STATE_ANSWERS_BYTES = 64 * 1024;

/**
 * The longest `requestState` read at all: the sealed answers' bound, its envelope and base64url's
 * third more. Anything longer was not issued here and is refused without decrypting it.
 */
const MAX_REQUEST_STATE_LENGTH = 128 * 1024;

const JWE_ALGORITHMS = { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] };

let josePromise: Promise<typeof Jose> | undefined;

/** jose is ESM-only; a dynamic import loads it from CommonJS (require(esm) once compiled). */
function loadJose(): Promise<typeof Jose> {
  return (josePromise ??= import('jose'));
}

/** What a request state is bound to (S-66): who asked, on which virtual server, for which request. */
export interface RequestStateBinding {
  principal: { subject: string; tenant: string; clientId?: string; anonymous: boolean };
  /** `<tenant>/<server>` of the virtual server. */
  server: string;
  method: string;
  /** The tool (or prompt, or resource) the request names. */
  name: string;
  /** SHA-256 (base64url) of the canonical JSON of the request's arguments; see {@link argumentsDigest}. */
  argumentsDigest: string;
}

/**
 * What one round hands the next: the answers gathered so far, the input keys the last round asked, and
 * what the handler's last round asked to get back (its `continuation`: an upstream's own state, say).
 */
export interface RoundState {
  answers: Record<string, unknown>;
  asked: string[];
  continuation?: Record<string, unknown>;
}

/** Why a request state was refused: unreadable (tampered, malformed, unknown key), too old, or another request's. */
export type RequestStateRefusal = 'invalid' | 'expired' | 'mismatch';

export type OpenedRequestState = { state: RoundState } | { refused: RequestStateRefusal; detail: string };

const SealedStateSchema = z.strictObject({
  version: z.literal(1),
  binding: z.strictObject({
    principal: z.strictObject({ subject: z.string(), tenant: z.string(), clientId: z.string().optional(), anonymous: z.boolean() }),
    server: z.string(),
    method: z.string(),
    name: z.string(),
    argumentsDigest: z.string(),
  }),
  expiresAt: z.number().int(),
  answers: z.record(z.string(), z.unknown()),
  asked: z.array(z.string()),
  continuation: z.record(z.string(), z.unknown()).optional(),
});
type SealedState = z.infer<typeof SealedStateSchema>;

/**
 * Seals and opens the `requestState` of multi round-trip requests (S-65, S-66, §3.3.2): a compact JWE
 * (`dir`, AES-256-GCM, the key's id as `kid`), so the client can neither read nor change it, and any
 * replica holding the keys opens it. Inside: the binding (principal, virtual server, method, name,
 * arguments digest), an expiry, the answers gathered so far, the keys asked last and the handler's
 * continuation. Not single-use:
 * a state may be replayed until it expires, by the same principal for the same request only.
 */
export class RequestStates {
  private readonly sealing: RequestStateKey;
  private readonly byId: ReadonlyMap<string, RequestStateKey>;

  /** `keys[0]` seals; every key opens (rotation: add the new key first, drop the old one after the TTL). */
  constructor(
    keys: readonly RequestStateKey[],
    private readonly now: () => number = Date.now,
  ) {
    const [sealing] = keys;
    if (!sealing) throw new Error('at least one request state key is needed');
    this.sealing = sealing;
    this.byId = new Map(keys.map((key) => [key.id, key]));
  }

  async seal(binding: RequestStateBinding, state: RoundState): Promise<string> {
    const sealed: SealedState = {
      version: 1,
      binding,
      expiresAt: this.now() + REQUEST_STATE_TTL_MS,
      answers: state.answers,
      asked: state.asked,
      ...(state.continuation === undefined ? {} : { continuation: state.continuation }),
    };
    const { CompactEncrypt } = await loadJose();
    return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(sealed)))
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: this.sealing.id })
      .encrypt(this.sealing.secret);
  }

  /** Opens a state and checks it belongs to `binding` and has not expired. */
  async open(token: string, binding: RequestStateBinding): Promise<OpenedRequestState> {
    if (token.length > MAX_REQUEST_STATE_LENGTH) return { refused: 'invalid', detail: `longer than ${MAX_REQUEST_STATE_LENGTH} characters` };
    let sealed: SealedState;
    try {
      const { compactDecrypt } = await loadJose();
      const { plaintext } = await compactDecrypt(
        token,
        (header: Jose.CompactJWEHeaderParameters) => {
          const key = header.kid === undefined ? undefined : this.byId.get(header.kid);
          if (!key) throw new Error(`sealed with an unknown key (${String(header.kid)})`);
          return key.secret;
        },
        JWE_ALGORITHMS,
      );
      const parsed = SealedStateSchema.safeParse(JSON.parse(new TextDecoder().decode(plaintext)));
      if (!parsed.success) return { refused: 'invalid', detail: 'its content is not a request state' };
      sealed = parsed.data;
    } catch (error) {
      return { refused: 'invalid', detail: (error as Error)?.message ?? 'it does not open' };
    }
    if (sealed.expiresAt <= this.now()) return { refused: 'expired', detail: `expired at ${new Date(sealed.expiresAt).toISOString()}` };
    const differs = differingField(sealed.binding, binding);
    if (differs) return { refused: 'mismatch', detail: `issued for another ${differs}` };
    return {
      state: { answers: sealed.answers, asked: sealed.asked, ...(sealed.continuation === undefined ? {} : { continuation: sealed.continuation }) },
    };
  }
}

/** The first field of the binding that differs (`principal`, `server`, `method`, `name`, `arguments`), if any. */
function differingField(sealed: RequestStateBinding, expected: RequestStateBinding): string | undefined {
  if (canonicalJson(sealed.principal) !== canonicalJson(expected.principal)) return 'principal';
  if (sealed.server !== expected.server) return 'virtual server';
  if (sealed.method !== expected.method) return 'method';
  if (sealed.name !== expected.name) return 'name';
  if (sealed.argumentsDigest !== expected.argumentsDigest) return 'arguments';
  return undefined;
}

/** SHA-256 (base64url) of the canonical JSON of a request's arguments; absent arguments count as `{}`. */
export function argumentsDigest(args: Record<string, unknown> | undefined): string {
  return createHash('sha256')
    .update(canonicalJson(args ?? {}))
    .digest('base64url');
}

/** JSON with object keys sorted (recursively) and `undefined` members left out: equal values, equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
