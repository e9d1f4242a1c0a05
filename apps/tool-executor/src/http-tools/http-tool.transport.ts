import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { type Agent, request } from 'undici';
import { createGuardedAgent, readLimitedBody } from '@mcp-platform/shared-egress';
import type { HttpAnswer } from './http-answer.mapper';
import { HTTP_TOOL_OPTIONS, type HttpToolOptions } from './http-tools.constants';

/** One outbound POST of an HTTP tool; injected so the runner is tested without a network. */
export abstract class HttpToolTransport {
  abstract post(url: URL, body: string, headers: Record<string, string>, signal: AbortSignal, maxBytes: number): Promise<HttpAnswer>;
}

/**
 * undici with the SSRF guard in the socket's DNS lookup (the checked address is the one connected to),
 * no redirects followed, and the body read up to `maxBytes`.
 */
@Injectable()
export class UndiciHttpToolTransport extends HttpToolTransport implements OnModuleDestroy {
  private readonly agent: Agent;

  constructor(@Inject(HTTP_TOOL_OPTIONS) options: HttpToolOptions) {
    super();
    this.agent = createGuardedAgent({ allowPrivateNetworks: options.allowPrivateNetworks });
  }

  async post(url: URL, body: string, headers: Record<string, string>, signal: AbortSignal, maxBytes: number): Promise<HttpAnswer> {
    const response = await request(url, {
      method: 'POST',
      body,
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/plain;q=0.9, */*;q=0.1' },
      signal,
      dispatcher: this.agent,
      maxRedirections: 0,
    });
    const { body: read, truncated } = await readLimitedBody(response.body, maxBytes);
    return { status: response.statusCode, contentType: headerOf(response.headers['content-type']), body: truncated ? '' : read.toString('utf8'), truncated };
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close();
  }
}

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
