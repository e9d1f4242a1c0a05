import { Logger } from '@nestjs/common';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock, SequentialIds } from '@mcp-platform/shared-clock';
import { SsrfRefusedError } from '@mcp-platform/shared-egress';
import { ClientMetadataFetcher, type FetchedDocument } from './client-metadata.fetcher';
import { ClientMetadataService } from './client-metadata.service';

const URL_ID = 'https://app.example.com/client.json';
const DOCUMENT = JSON.stringify({ client_id: URL_ID, client_name: 'Example', redirect_uris: ['https://app.example.com/cb'] });

class FakeFetcher extends ClientMetadataFetcher {
  calls = 0;
  constructor(private readonly answer: () => Promise<FetchedDocument>) {
    super();
  }
  fetch(): Promise<FetchedDocument> {
    this.calls += 1;
    return this.answer();
  }
}

const ok = (overrides: Partial<FetchedDocument> = {}): FetchedDocument => ({
  status: 200,
  contentType: 'application/json',
  cacheControl: undefined,
  body: DOCUMENT,
  truncated: false,
  ...overrides,
});

function setup(answer: () => Promise<FetchedDocument>) {
  const fetcher = new FakeFetcher(answer);
  const clock = new ManualClock(0);
  return { fetcher, clock, service: new ClientMetadataService(fetcher, clock, new SequentialIds('error')) };
}

describe(ClientMetadataService, () => {
  beforeAll(() => Logger.overrideLogger(false));

  describe('resolve', () => {
    it('answers the validated metadata and caches it per Cache-Control', async () => {
      const { fetcher, clock, service } = setup(async () => ok({ cacheControl: 'max-age=120' }));
      await expect(service.resolve(URL_ID)).resolves.toMatchObject({ ok: true, metadata: { client_name: 'Example' } });
      clock.advance(119_000);
      await service.resolve(URL_ID);
      expect(fetcher.calls).toBe(1);
      clock.advance(2_000);
      await service.resolve(URL_ID);
      expect(fetcher.calls).toBe(2);
    });

    it('shares one fetch between concurrent look-ups', async () => {
      const { fetcher, service } = setup(async () => ok());
      await Promise.all([service.resolve(URL_ID), service.resolve(URL_ID), service.resolve(URL_ID)]);
      expect(fetcher.calls).toBe(1);
    });

    it('caches a refusal briefly (30 s)', async () => {
      const { fetcher, clock, service } = setup(async () => ok({ status: 404 }));
      await expect(service.resolve(URL_ID)).resolves.toEqual({ ok: false, reason: 'fetching the document answered HTTP 404' });
      clock.advance(29_000);
      await service.resolve(URL_ID);
      expect(fetcher.calls).toBe(1);
      clock.advance(2_000);
      await service.resolve(URL_ID);
      expect(fetcher.calls).toBe(2);
    });

    it('refuses an oversized document and another content type with the reason', async () => {
      await expect(setup(async () => ok({ truncated: true })).service.resolve(URL_ID)).resolves.toEqual({
        ok: false,
        reason: 'the document is larger than 5 KiB',
      });
      await expect(setup(async () => ok({ contentType: 'text/html' })).service.resolve(URL_ID)).resolves.toMatchObject({
        ok: false,
        reason: expect.stringMatching(/content type/),
      });
    });

    it.each([
      [
        'an SSRF refusal',
        new Error('fetch failed', { cause: new SsrfRefusedError('app.example.com resolves to 10.0.0.1, which is not a public address', 'non_public_address') }),
        /10\.0\.0\.1.*CIMD_ALLOWED_HOSTS/,
      ],
      ['a DNS failure', Object.assign(new Error('getaddrinfo ENOTFOUND app.example.com'), { code: 'ENOTFOUND' }), /ENOTFOUND app\.example\.com/],
      ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 10.9.8.7:443'), { code: 'ECONNREFUSED' }), /ECONNREFUSED 10\.9\.8\.7:443/],
    ])('answers %s with a generic reason and an error id, logging the details under that id', async (_case, error, detail) => {
      const warnings: string[] = [];
      const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
      try {
        const refused = setup(async () => {
          throw error;
        });
        const result = await refused.service.resolve(URL_ID);
        const reason = result.ok ? '' : result.reason;
        expect(reason).toBe('the document could not be fetched (error id error-1)');
        expect(warnings).toEqual([expect.stringMatching(new RegExp(`${URL_ID}.*error id error-1.*${detail.source}`))]);
      } finally {
        warn.mockRestore();
      }
    });

    it('accepts JSON subtypes such as application/foo+json', async () => {
      await expect(setup(async () => ok({ contentType: 'application/oauth-client+json; charset=utf-8' })).service.resolve(URL_ID)).resolves.toMatchObject({
        ok: true,
      });
    });

    it('does not fetch what is not a document URL', async () => {
      const { fetcher, service } = setup(async () => ok());
      await expect(service.resolve('http://app.example.com/client.json')).resolves.toMatchObject({ ok: false });
      expect(fetcher.calls).toBe(0);
    });
  });
});
