import { describe, expect, it } from 'vitest';
import type { HttpAnswer } from './http-answer.mapper';
import { HttpToolRunner } from './http-tool.runner';
import { HttpToolTransport } from './http-tool.transport';
import { SsrfRefusedError } from '@mcp-platform/shared-egress';

class FakeTransport extends HttpToolTransport {
  calls: Array<{ url: string; body: string; headers: Record<string, string> }> = [];
  constructor(private readonly answer: (signal: AbortSignal) => Promise<HttpAnswer>) {
    super();
  }
  post(url: URL, body: string, headers: Record<string, string>, signal: AbortSignal): Promise<HttpAnswer> {
    this.calls.push({ url: url.toString(), body, headers });
    return this.answer(signal);
  }
}

const options = (allowPrivateNetworks: boolean) => ({ allowPrivateNetworks, timeoutMs: 1_000, maxResponseBytes: 1024 });

describe(HttpToolRunner, () => {
  describe('run', () => {
    it('POSTs the arguments as JSON and maps the answer', async () => {
      const transport = new FakeTransport(async () => ({ status: 200, contentType: 'application/json', body: '{"ok":true}', truncated: false }));
      const runner = new HttpToolRunner(options(false), transport);
      const result = await runner.run('weather', { url: 'https://tools.example.com/w', headers: { 'x-key': 'k' } }, { city: 'Oslo' }, new AbortController().signal);
      expect(transport.calls).toEqual([{ url: 'https://tools.example.com/w', body: '{"city":"Oslo"}', headers: { 'x-key': 'k' } }]);
      expect(result).toEqual({ content: [{ type: 'text', text: '{"ok":true}' }], structuredContent: { ok: true } });
    });

    it('refuses a private literal address without calling out', async () => {
      const transport = new FakeTransport(async () => ({ status: 200, contentType: 'text/plain', body: 'x', truncated: false }));
      const result = await new HttpToolRunner(options(false), transport).run('t', { url: 'http://169.254.169.254/latest' }, {}, new AbortController().signal);
      expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/refused.*not a public address/) }] });
      expect(transport.calls).toEqual([]);
    });

    it('turns a refusal from the guarded lookup into an error result', async () => {
      const transport = new FakeTransport(async () => {
        throw Object.assign(new Error('connect failed'), { cause: new SsrfRefusedError('evil.example resolves to 10.0.0.1') });
      });
      const result = await new HttpToolRunner(options(false), transport).run('t', { url: 'https://evil.example/' }, {}, new AbortController().signal);
      expect(result).toMatchObject({ isError: true, content: [{ text: 'Outbound request refused: evil.example resolves to 10.0.0.1' }] });
    });

    it('answers an error result when the endpoint is too slow', async () => {
      const transport = new FakeTransport(
        (signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true })),
      );
      const result = await new HttpToolRunner(options(true), transport).run('t', { url: 'http://127.0.0.1:1/', timeoutMs: 20 }, {}, new AbortController().signal);
      expect(result).toMatchObject({ isError: true, content: [{ text: 'The tool endpoint did not answer within 20 ms.' }] });
    });

    it('rethrows when the call itself was aborted', async () => {
      const controller = new AbortController();
      const transport = new FakeTransport(async () => {
        controller.abort();
        throw new Error('aborted');
      });
      await expect(new HttpToolRunner(options(true), transport).run('t', { url: 'http://127.0.0.1:1/' }, {}, controller.signal)).rejects.toThrow('aborted');
    });
  });
});
