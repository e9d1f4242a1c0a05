import { rootCertificates } from 'node:tls';
import { Agent } from 'undici';
import { type EgressPolicy, guardedLookup, type Resolver } from './ssrf-guard';

/** How a guarded agent connects, besides its SSRF policy. */
export interface GuardedAgentOptions {
  /** A PEM bundle trusted in addition to the system's CAs (a private CA, or a test's self-signed certificate). */
  caPem?: string;
  /** How long an idle kept-alive connection stays open (default 10 s). */
  keepAliveTimeoutMs?: number;
  /** Upper bound of the TCP + TLS connection setup (undici's default, 10 s, when absent). */
  connectTimeoutMs?: number;
  /** Resolves host names (tests inject one); the system resolver by default. */
  resolve?: Resolver;
}

/**
 * An undici `Agent` whose sockets connect only where the policy allows: the SSRF guard sits in the
 * connection's DNS lookup, so the address checked is the address connected to. Redirects are the
 * caller's business: pass `maxRedirections: 0` (undici's `request` follows none by default).
 */
export function createGuardedAgent(policy: EgressPolicy, options: GuardedAgentOptions = {}): Agent {
  return new Agent({
    connect: {
      lookup: guardedLookup(policy, options.resolve),
      ...(options.connectTimeoutMs ? { timeout: options.connectTimeoutMs } : {}),
      // `ca` replaces the default trust store, so the system's roots are passed along with the extra one.
      ...(options.caPem ? { ca: [...rootCertificates, options.caPem] } : {}),
    },
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
  });
}

/** A body read up to a cap: `truncated` when it was longer (the rest is not read). */
export interface LimitedBody {
  body: Buffer;
  truncated: boolean;
}

/** Reads at most `maxBytes` of a response body, then stops reading (and destroys the stream) past the cap. */
export async function readLimitedBody(body: AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown }, maxBytes: number): Promise<LimitedBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(Buffer.from(chunk));
  }
  return { body: Buffer.concat(chunks), truncated: false };
}
