import type { FetchLike } from '@modelcontextprotocol/client';
import { type Agent, fetch as undiciFetch } from 'undici';

/** The most one answer of an upstream may carry (a JSON body, or everything of one POST's SSE stream). */
export const UPSTREAM_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** Raised inside an upstream's response stream that went past the cap; the request fails with it. */
export class UpstreamResponseTooLarge extends Error {
  constructor(maxBytes: number) {
    super(`the upstream's answer went past ${maxBytes} bytes`);
    this.name = 'UpstreamResponseTooLarge';
  }
}

/**
 * The fetch the SDK's HTTP transports use for one upstream: every connection through the SSRF-guarded
 * agent (the address checked is the one connected to), no redirect followed (the SDK sees the 3xx and
 * fails; an upstream that moved is the admin's to update), the source's static headers on every request,
 * and answers cut at `maxBytes`: a POST's body, or a GET stream's total (a GET stream that floods is cut
 * and reopened by the SDK, which resumes it).
 */
export function upstreamFetch(agent: Agent, headers: Record<string, string>, maxBytes = UPSTREAM_MAX_RESPONSE_BYTES): FetchLike {
  return async (url, init) => {
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    // The SDK passes one long-lived signal to every request; undici would hang a listener on it per
    // request until a garbage collection. A signal of the request's own follows it without that.
    const signal = init?.signal ? AbortSignal.any([init.signal]) : undefined;
    const response = await undiciFetch(url, {
      ...(init as object),
      headers: merged,
      dispatcher: agent,
      redirect: 'manual',
      ...(signal ? { signal } : {}),
    } as Parameters<typeof undiciFetch>[1]);
    if (!response.body) return response as unknown as Response;
    const capped = response.body.pipeThrough(byteCap(maxBytes));
    return new Response(capped as ReadableStream<Uint8Array>, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers as unknown as Headers,
    });
  };
}

function byteCap(maxBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  return new TransformStream({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxBytes) controller.error(new UpstreamResponseTooLarge(maxBytes));
      else controller.enqueue(chunk);
    },
  });
}
