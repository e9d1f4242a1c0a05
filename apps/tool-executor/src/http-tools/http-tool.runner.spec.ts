import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '@mcp-platform/protocol-mcp';
import { SequentialIds } from '@mcp-platform/shared-clock';
import { SsrfRefusedError } from '@mcp-platform/shared-egress';
import type { ToolLastError } from '../catalog/catalog.types';
import type { HttpAnswer } from './http-answer.mapper';
import { HttpToolRunner } from './http-tool.runner';
import { HttpToolTransport } from './http-tool.transport';
import { type FailedTool, HttpToolFailures } from './http-tool-failures';

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

class RecordedFailures extends HttpToolFailures {
  readonly recorded: Array<{ tool: FailedTool; failure: ToolLastError }> = [];
  record(tool: FailedTool, failure: ToolLastError): void {
    this.recorded.push({ tool, failure });
  }
}

const TOOL: FailedTool = { id: 'tool-1', tenant: 'acme', name: 'weather' };
const options = (allowPrivateNetworks: boolean) => ({ allowPrivateNetworks, timeoutMs: 1_000, maxResponseBytes: 1024 });
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const GENERIC = /^The tool's endpoint could not be reached \(error id (error-\d+)\)\.$/;

function setup(answer: (signal: AbortSignal) => Promise<HttpAnswer>, allowPrivateNetworks = false) {
  const transport = new FakeTransport(answer);
  const failures = new RecordedFailures();
  return { transport, failures, runner: new HttpToolRunner(options(allowPrivateNetworks), transport, failures, new SequentialIds('error')) };
}

describe(HttpToolRunner, () => {
  describe('run', () => {
    it('POSTs the arguments as JSON and maps the answer, recording nothing', async () => {
      const { transport, failures, runner } = setup(async () => ({ status: 200, contentType: 'application/json', body: '{"ok":true}', truncated: false }));
      const result = await runner.run(TOOL, { url: 'https://tools.example.com/w', headers: { 'x-key': 'k' } }, { city: 'Oslo' }, new AbortController().signal);
      expect(transport.calls).toEqual([{ url: 'https://tools.example.com/w', body: '{"city":"Oslo"}', headers: { 'x-key': 'k' } }]);
      expect(result).toEqual({ content: [{ type: 'text', text: '{"ok":true}' }], structuredContent: { ok: true } });
      expect(failures.recorded).toEqual([]);
    });

    it('refuses a private literal address without calling out: the caller gets an error id, the administrators the reason and the setting', async () => {
      const { transport, failures, runner } = setup(async () => ({ status: 200, contentType: 'text/plain', body: 'x', truncated: false }));
      const result = await runner.run(TOOL, { url: 'http://169.254.169.254/latest' }, {}, new AbortController().signal);
      expect(result.isError).toBe(true);
      const errorId = GENERIC.exec(textOf(result))?.[1];
      expect(errorId, textOf(result)).toBe('error-1');
      expect(JSON.stringify(result)).not.toMatch(/169\.254|public address|TOOL_HTTP/);
      expect(transport.calls).toEqual([]);
      expect(failures.recorded).toEqual([
        {
          tool: TOOL,
          failure: {
            at: expect.any(Date),
            errorId,
            kind: 'refused',
            detail: expect.stringMatching(/169\.254\.169\.254 is not a public address.*TOOL_HTTP_ALLOW_PRIVATE_NETWORKS=true.*operator setting/),
          },
        },
      ]);
    });

    it('hides a refusal from the guarded lookup (the host resolved to a private address) behind the same generic text', async () => {
      const { failures, runner } = setup(async () => {
        throw Object.assign(new Error('connect failed'), {
          cause: new SsrfRefusedError('localhost resolves to 127.0.0.1, which is not a public address', 'non_public_address'),
        });
      });
      const result = await runner.run(TOOL, { url: 'https://localhost/' }, {}, new AbortController().signal);
      expect(textOf(result)).toMatch(GENERIC);
      expect(JSON.stringify(result)).not.toMatch(/127\.0\.0\.1|resolves/);
      expect(failures.recorded[0]?.failure).toMatchObject({
        kind: 'refused',
        detail: expect.stringMatching(/localhost resolves to 127\.0\.0\.1.*TOOL_HTTP_ALLOW_PRIVATE_NETWORKS/),
      });
      expect(textOf(result)).toContain(failures.recorded[0]?.failure.errorId);
    });

    it('does not name the setting when the URL itself is refused (a scheme no setting allows)', async () => {
      const { failures, runner } = setup(async () => ({ status: 200, contentType: 'text/plain', body: 'x', truncated: false }));
      const result = await runner.run(TOOL, { url: 'ftp://tools.example.com/' }, {}, new AbortController().signal);
      expect(textOf(result)).toMatch(GENERIC);
      expect(failures.recorded[0]?.failure).toMatchObject({ kind: 'refused', detail: expect.stringMatching(/only http and https/) });
      expect(failures.recorded[0]?.failure.detail).not.toMatch(/TOOL_HTTP_ALLOW_PRIVATE_NETWORKS/);
    });

    it.each([
      ['a DNS failure', Object.assign(new Error('getaddrinfo ENOTFOUND billing.internal.corp'), { code: 'ENOTFOUND' }), /ENOTFOUND billing\.internal\.corp/],
      ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:8443'), { code: 'ECONNREFUSED' }), /ECONNREFUSED 10\.1\.2\.3:8443/],
      [
        'a TLS failure',
        Object.assign(new Error('fetch failed'), {
          cause: Object.assign(
            new Error("Hostname/IP does not match certificate's altnames: Host: tools.example.com. is not in the cert's altnames: DNS:vault.internal.corp"),
            { code: 'ERR_TLS_CERT_ALTNAME_INVALID' },
          ),
        }),
        /vault\.internal\.corp.*ERR_TLS_CERT_ALTNAME_INVALID/,
      ],
    ])('answers %s with the generic text and keeps the network details for the administrators', async (_case, error, detail) => {
      const { failures, runner } = setup(async () => {
        throw error;
      }, true);
      const result = await runner.run(TOOL, { url: 'https://tools.example.com/' }, {}, new AbortController().signal);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(GENERIC);
      expect(failures.recorded[0]?.failure).toMatchObject({ kind: 'unreachable', detail: expect.stringMatching(detail) });
      expect(textOf(result)).toContain(failures.recorded[0]?.failure.errorId);
    });

    it('answers an error result when the endpoint is too slow, and records it', async () => {
      const { failures, runner } = setup(
        (signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true })),
        true,
      );
      const result = await runner.run(TOOL, { url: 'http://127.0.0.1:1/', timeoutMs: 20 }, {}, new AbortController().signal);
      expect(result).toMatchObject({ isError: true, content: [{ text: 'The tool endpoint did not answer within 20 ms.' }] });
      expect(failures.recorded[0]?.failure).toMatchObject({ kind: 'timeout', detail: 'The tool endpoint did not answer within 20 ms.' });
    });

    it("tells the caller the endpoint's own failure (a status) and records it", async () => {
      const { failures, runner } = setup(async () => ({ status: 503, contentType: 'text/plain', body: 'down for maintenance', truncated: false }));
      const result = await runner.run(TOOL, { url: 'https://tools.example.com/' }, {}, new AbortController().signal);
      expect(textOf(result)).toBe('The tool endpoint answered HTTP 503: down for maintenance');
      expect(failures.recorded[0]?.failure).toMatchObject({ kind: 'status', detail: 'The tool endpoint answered HTTP 503: down for maintenance' });
    });

    it('rethrows when the call itself was aborted, recording nothing', async () => {
      const controller = new AbortController();
      const { failures, runner } = setup(async () => {
        controller.abort();
        throw new Error('aborted');
      }, true);
      await expect(runner.run(TOOL, { url: 'http://127.0.0.1:1/' }, {}, controller.signal)).rejects.toThrow('aborted');
      expect(failures.recorded).toEqual([]);
    });
  });
});
