import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolResultText } from '@mcp-platform/shared-testing';
import { isResponseBody } from './client-routing';
import { distributedMode, embeddedMode, type Platform, type PlatformMode, seededUrls } from './platforms';

/** What the client's user and model answer in these tests. */
const USER = { username: 'testuser', email: 'test@example.com' };
const MODEL_TEXT = 'This is a test response from the client';

/**
 * A legacy client (SDK 1.x) declaring `capabilities`, answering elicitation, sampling and roots. Its
 * transport sends every POST that answers a server request to `answersUrl` (another broker replica in
 * the distributed mode), everything else to `url`: no stickiness.
 */
async function openClient(url: string, answersUrl: string, capabilities: Record<string, unknown>) {
  const answered: string[] = [];
  const client = new LegacyClient({ name: 'e2e-client-requests', version: '1.0.0' }, { capabilities });
  if ('elicitation' in capabilities) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      answered.push(`elicitation:${request.params.message}`);
      return { action: 'accept', content: USER };
    });
  }
  if ('sampling' in capabilities) {
    client.setRequestHandler(CreateMessageRequestSchema, () => {
      answered.push('sampling');
      return { role: 'assistant', content: { type: 'text', text: MODEL_TEXT }, model: 'test-model', stopReason: 'endTurn' };
    });
  }
  if ('roots' in capabilities) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
  const sentTo: string[] = [];
  const transport = new LegacyTransport(new URL(url), {
    fetch: (input, init) => {
      const target = init?.method === 'POST' && isResponseBody(init.body) ? answersUrl : url;
      sentTo.push(target);
      return fetch(target === url ? input : target, init);
    },
  });
  await client.connect(transport);
  return { client, transport, answered, answersSentTo: () => sentTo.filter((target) => target === answersUrl && answersUrl !== url).length };
}

const modes: PlatformMode[] = [embeddedMode(), distributedMode(2)];

describe.each(modes)('requests to the client in the legacy era, $name mode', (mode) => {
  let platform: Platform;
  let url: string;
  let answersUrl: string;

  beforeAll(async () => {
    platform = await mode.boot();
    const [brokerA, brokerB] = platform.mode === 'distributed' ? platform.brokerUrls : [platform.baseUrl, platform.baseUrl];
    url = seededUrls(brokerA ?? '').conformance;
    answersUrl = seededUrls(brokerB ?? '').conformance;
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it('completes an elicitation whose answer is POSTed to the other replica (S-316, §3.2.3)', async () => {
    const { client, transport, answered, answersSentTo } = await openClient(url, answersUrl, { elicitation: {} });
    try {
      const result = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Please provide your information' } });
      expect(answered).toEqual(['elicitation:Please provide your information']);
      expect(result.isError).toBeFalsy();
      expect(toolResultText(result)).toContain('accept');
      expect(toolResultText(result)).toContain(USER.email);
      if (platform.mode === 'distributed') expect(answersSentTo()).toBe(1);
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });

  it('samples the client’s model, and the call goes on with the answer', async () => {
    const { client, transport, answered } = await openClient(url, answersUrl, { sampling: {} });
    try {
      const result = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Test prompt for sampling' } });
      expect(answered).toEqual(['sampling']);
      expect(toolResultText(result)).toContain(MODEL_TEXT);
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });

  it('asks nothing of a client that did not declare the capability; the tool says so (S-331)', async () => {
    const { client, transport, answered } = await openClient(url, answersUrl, {});
    try {
      const result = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'anything' } });
      expect(answered).toEqual([]);
      expect(result.isError).toBe(true);
      expect(toolResultText(result)).toMatch(/not support/i);
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });
});
