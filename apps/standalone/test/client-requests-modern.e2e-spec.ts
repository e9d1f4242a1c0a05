import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ErrorCodes,
  META_KEYS,
  MODERN_PROTOCOL_VERSION,
  modernHeaders,
  modernMeta,
  responseMessage,
  sendRaw,
  toolResultText,
} from '@mcp-platform/shared-testing';
import { isRetry } from './client-routing';
import { distributedMode, embeddedMode, type Platform, type PlatformMode, seededUrls } from './platforms';

/** What the client's user answers in these tests. */
const USER = { username: 'testuser', email: 'test@example.com' };
const MESSAGE = 'Please provide your information';

/**
 * A modern client (SDK 2.x, pinned to 2026-07-28) declaring `capabilities` and answering elicitation
 * through its own multi round-trip driver. Its transport sends every retry to `retryUrl` (the other
 * broker replica in the distributed mode) and everything else to `url`: no stickiness.
 */
async function openClient(url: string, retryUrl: string, capabilities: Record<string, unknown>) {
  const answered: string[] = [];
  const client = new ModernClient(
    { name: 'e2e-client-requests-modern', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } },
  );
  if ('elicitation' in capabilities) {
    client.setRequestHandler('elicitation/create', (request) => {
      answered.push(`elicitation:${request.params.message}`);
      return { action: 'accept', content: USER };
    });
  }
  const retries: string[] = [];
  const transport = new ModernTransport(new URL(url), {
    fetch: (input, init) => {
      if (init?.method !== 'POST' || !isRetry(init.body)) return fetch(input, init);
      retries.push(retryUrl);
      return fetch(retryUrl, init);
    },
  });
  await client.connect(transport);
  return { client, answered, retriesSentTo: () => [...retries] };
}

/** A raw modern `tools/call` of `test_elicitation` by a client declaring form elicitation. */
function callElicitation(url: string, id: number, params: Record<string, unknown>) {
  return sendRaw({
    url,
    method: 'POST',
    headers: modernHeaders('tools/call', 'test_elicitation'),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'test_elicitation', ...params, _meta: modernMeta({ [META_KEYS.clientCapabilities]: { elicitation: {} } }) },
    }),
  });
}

const modes: PlatformMode[] = [embeddedMode(), distributedMode(2)];

describe.each(modes)('requests to the client in the modern era (multi round-trip requests), $name mode', (mode) => {
  let platform: Platform;
  let url: string;
  let otherUrl: string;

  beforeAll(async () => {
    platform = await mode.boot();
    const [brokerA, brokerB] = platform.mode === 'distributed' ? platform.brokerUrls : [platform.baseUrl, platform.baseUrl];
    url = seededUrls(brokerA ?? '').conformance;
    otherUrl = seededUrls(brokerB ?? '').conformance;
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it('completes an elicitation through an input_required round trip, the retry served by the other replica (S-60, S-69, §3.3.2)', async () => {
    const { client, answered, retriesSentTo } = await openClient(url, otherUrl, { elicitation: {} });
    try {
      const result = await client.callTool({ name: 'test_elicitation', arguments: { message: MESSAGE } });
      expect(answered).toEqual([`elicitation:${MESSAGE}`]);
      expect(result.isError).toBeFalsy();
      expect(toolResultText(result)).toContain('accept');
      expect(toolResultText(result)).toContain(USER.email);
      expect(retriesSentTo()).toEqual([otherUrl]);
    } finally {
      await client.close();
    }
  });

  it('asks nothing of a client that did not declare elicitation on the request, and answers -32021 naming it (S-64, S-38)', async () => {
    const { client, answered, retriesSentTo } = await openClient(url, otherUrl, {});
    try {
      const refused = await client.callTool({ name: 'test_elicitation', arguments: { message: MESSAGE } }).catch((error: unknown) => error);
      expect(answered).toEqual([]);
      expect(retriesSentTo()).toEqual([]);
      expect(refused).toMatchObject({ code: ErrorCodes.MissingRequiredClientCapability });
    } finally {
      await client.close();
    }
    const raw = await sendRaw({
      url,
      method: 'POST',
      headers: modernHeaders('tools/call', 'test_missing_capability'),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'test_missing_capability', arguments: {}, _meta: modernMeta({ [META_KEYS.clientCapabilities]: {} }) },
      }),
    });
    expect(raw.status).toBe(400);
    expect(responseMessage(raw)).toMatchObject({
      id: 7,
      error: { code: ErrorCodes.MissingRequiredClientCapability, data: { requiredCapabilities: { sampling: {} } } },
    });
  });

  it("asks for a prompt's inputs by result and renders the answer, the retry served by the other replica (S-60 on prompts/get)", async () => {
    const { client, answered, retriesSentTo } = await openClient(url, otherUrl, { elicitation: {} });
    client.setRequestHandler('elicitation/create', (request) => {
      answered.push(`elicitation:${request.params.message}`);
      return { action: 'accept', content: { context: 'the e2e suite' } };
    });
    try {
      const prompt = await client.getPrompt({ name: 'test_input_required_result_prompt' });
      expect(answered).toEqual(['elicitation:What context should the prompt use?']);
      expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Answer with this context in mind: the e2e suite' } }]);
      expect(retriesSentTo()).toEqual([otherUrl]);
    } finally {
      await client.close();
    }
  });

  it('binds the sealed state to its call: an altered state or other arguments are refused on any replica, the faithful retry completes (S-65, S-66)', async () => {
    const first = await callElicitation(url, 1, { arguments: { message: MESSAGE } });
    expect(first.status).toBe(200);
    const round = responseMessage(first)?.result as { resultType: string; inputRequests: Record<string, unknown>; requestState: string; ttlMs?: number };
    expect(round).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'input-1': { method: 'elicitation/create', params: { message: MESSAGE, requestedSchema: expect.any(Object) } } },
      requestState: expect.any(String),
    });
    // spec S-70: an input_required result carries no caching hints.
    expect(round).not.toHaveProperty('ttlMs');
    expect(round).not.toHaveProperty('cacheScope');

    const answer = { 'input-1': { action: 'accept', content: USER } };
    const altered = `${round.requestState.slice(0, -4)}${round.requestState.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    const tampered = await callElicitation(otherUrl, 2, { arguments: { message: MESSAGE }, inputResponses: answer, requestState: altered });
    expect(responseMessage(tampered)?.error).toMatchObject({
      code: ErrorCodes.InvalidParams,
      message: expect.stringMatching(/^Invalid params: requestState /),
    });
    const replayed = await callElicitation(otherUrl, 3, {
      arguments: { message: 'Please give me your password' },
      inputResponses: answer,
      requestState: round.requestState,
    });
    expect(responseMessage(replayed)?.error).toMatchObject({
      code: ErrorCodes.InvalidParams,
      message: 'Invalid params: requestState belongs to another request',
    });

    const retried = await callElicitation(otherUrl, 4, { arguments: { message: MESSAGE }, inputResponses: answer, requestState: round.requestState });
    const result = responseMessage(retried)?.result;
    expect(result).toMatchObject({ resultType: 'complete' });
    expect(toolResultText(result)).toContain(USER.email);
  });
});
