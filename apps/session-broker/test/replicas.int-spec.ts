import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resourceStore, toolExecutor } from '@mcp-platform/protocol-contracts';
import { inProcessMessaging, MessageBus, type MessagingOptions } from '@mcp-platform/shared-messaging';
import { isolatedNatsMessaging, parseSse } from '@mcp-platform/shared-testing';
import { legacyCallId } from '../src/calls/call-id';
import { CallRegistry, type OpenCall } from '../src/calls/call-registry.service';
import { generateRequestStateKey } from '../src/config/request-state-keys';
import { SessionStore } from '../src/sessions/session.store';
import { ListenStreams } from '../src/subscriptions/listen-streams.registry';
import { bootBroker, type BootedBroker, ExecutorLog } from './fake-tool-executor';
import { ACCEPT_BOTH, eventually, initializeRaw, modernHeaders, modernParams, openStream, post } from './http-helpers';

const run = `sr${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;

// Two replicas share one bus and one session bucket; each has its own route and its own memory.
/** How a 2025-11-25 session's stream starts: an event id at position 0, the retry delay, no data (S-80). */
const PRIMING_EVENT = { id: expect.stringMatching(/:0$/), retry: 1_000, data: '' };

/** Whether the replica saw the client of a call it holds go (the registry offers no probe for this, so the test looks inside). */
function clientLeft(broker: BootedBroker, callId: string): boolean {
  const calls = (broker.app.get(CallRegistry) as unknown as { calls: Map<string, OpenCall> }).calls;
  return calls.get(callId)?.response.open === false;
}

const shared: Array<[string, () => [MessagingOptions, MessagingOptions]]> = [
  [
    'in-process',
    () => {
      const messaging = inProcessMessaging();
      return [messaging, messaging];
    },
  ],
  ['nats', () => [isolatedNatsMessaging(`broker-a-${run}`, run), isolatedNatsMessaging(`broker-b-${run}`, run)]],
];

describe.each(shared)('two broker replicas over %s', (_transport, messaging) => {
  let first: BootedBroker;
  let second: BootedBroker;
  const log = new ExecutorLog();

  beforeAll(async () => {
    const [a, b] = messaging();
    // Every replica holds the same request state keys (REQUEST_STATE_KEYS), so either opens the other's states.
    const requestStateKeys = [generateRequestStateKey('replicas')];
    first = await bootBroker(a, { executor: log, broker: { replicaId: `a-${run}`, requestStateKeys } });
    second = await bootBroker(b, { broker: { replicaId: `b-${run}`, requestStateKeys } });
  });
  afterAll(async () => {
    console.log('closing second');
    await second.close();
    console.log('closing first');
    await first.close();
    console.log('closed');
  });

  it('serves a session initialized on one replica through the other, notifications included', async () => {
    const client = new LegacyClient({ name: 'replica-test', version: '1.0.0' });
    const transport = new LegacyTransport(new URL(first.mcpUrl));
    await client.connect(transport);
    const sessionId = transport.sessionId as string;
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    const listed = await post(second.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers);
    expect(listed.status).toBe(200);
    expect(listed.messages[0]).toMatchObject({ id: 1, result: { tools: expect.any(Array) } });
    const streamed = await post(
      second.mcpUrl,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'chatty', arguments: {}, _meta: { progressToken: 99 } } },
      headers,
    );
    expect(streamed.headers.get('content-type')).toBe('text/event-stream');
    expect(streamed.messages.filter((message) => (message as { method?: string }).method === 'notifications/progress')).toHaveLength(3);
    expect(log.calls.at(-1)?.notify?.route).toBe(`b-${run}`);
    await client.close();
  });

  it('cancels a call running behind one replica with notifications/cancelled sent to the other', async () => {
    const sessionId = await initializeRaw(first.mcpUrl);
    const pending = fetch(first.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'wait_for_cancel', arguments: {} } }),
    });
    const callId = legacyCallId(sessionId, 41);
    await eventually(() => log.calls.find((call) => call.callId === callId));
    const cancel = await post(
      second.mcpUrl,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 41, reason: 'changed my mind' } },
      { 'mcp-session-id': sessionId },
    );
    expect(cancel.status).toBe(202);
    await eventually(() => (log.cancelled.includes(callId) ? true : undefined));
    const answer = await pending;
    expect(answer.status).toBe(200);
    // spec S-256: the cancelled request gets no response, its stream just ends (after its priming event, S-80).
    expect(parseSse(await answer.text())).toEqual([PRIMING_EVENT]);
  });

  it('ends a session everywhere when it is deleted through the other replica', async () => {
    const sessionId = await initializeRaw(first.mcpUrl);
    await expect(post(first.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': sessionId })).resolves.toMatchObject({ status: 200 });
    const deleted = await fetch(second.mcpUrl, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    expect(deleted.status).toBe(200);
    await eventually(async () => {
      const answer = await post(first.mcpUrl, { jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': sessionId });
      return answer.status === 404 ? answer : undefined;
    }, 2_000);
    await expect(post(second.mcpUrl, { jsonrpc: '2.0', id: 3, method: 'ping' }, { 'mcp-session-id': sessionId })).resolves.toMatchObject({ status: 404 });
  });

  it('closes the GET stream of a deleted session on the replica that holds it', async () => {
    const sessionId = await initializeRaw(first.mcpUrl);
    const stream = await fetch(first.mcpUrl, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    const second409 = await fetch(first.mcpUrl, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } });
    expect(second409.status).toBe(409);
    await second409.body?.cancel();
    await fetch(second.mcpUrl, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    expect(parseSse(await stream.text())).toEqual([PRIMING_EVENT]);
  });

  it('delivers resources/updated exactly once on the GET stream held by the other replica than the one that took the subscribe', async () => {
    const sessionId = await initializeRaw(first.mcpUrl);
    const headers = { 'mcp-session-id': sessionId };
    // Subscriptions written through both replicas land in the one session.
    await expect(post(first.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri: 'demo://guide' } }, headers)).resolves.toMatchObject(
      { messages: [{ result: {} }] },
    );
    await expect(post(second.mcpUrl, { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'demo://logo' } }, headers)).resolves.toMatchObject(
      { messages: [{ result: {} }] },
    );
    const stream = await openStream(second.mcpUrl, { method: 'GET', headers: { 'mcp-session-id': sessionId } });
    expect(stream.status).toBe(200);
    const received = stream.messages;
    const mirror = second.app.get(SessionStore);
    await eventually(() => (mirror.isSubscribed(sessionId, 'demo://guide') && mirror.isSubscribed(sessionId, 'demo://logo') ? true : undefined));

    // The change is announced through replica A's bus; every replica hears it, only B holds the stream.
    const bus = first.app.get(MessageBus);
    bus.emit(resourceStore.resourceUpdated, { tenant: 'demo', uri: 'demo://guide' });
    bus.emit(resourceStore.resourceUpdated, { tenant: 'demo', uri: 'demo://unwatched' });
    bus.emit(resourceStore.resourceUpdated, { tenant: 'demo', uri: 'demo://logo' });
    // One publisher, one subject: the events reach B in order, so once the last one is on the stream
    // a duplicate of the first would be there too.
    await eventually(() => (received().some((message) => message.params?.uri === 'demo://logo') ? true : undefined));
    expect(received().filter((message) => message.method === 'notifications/resources/updated')).toEqual([
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'demo://guide' } },
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'demo://logo' } },
    ]);
    await stream.close();
  });

  it('sends a call’s request to its client on the call’s stream, and routes the answer POSTed to the other replica back to the call', async () => {
    const sessionId = await initializeRaw(first.mcpUrl);
    const call = await openStream(first.mcpUrl, {
      method: 'POST',
      headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
      body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'ask_roots', arguments: {} } },
    });
    await eventually(() => (call.messages().length > 0 ? true : undefined));
    const request = call.messages()[0];
    const callId = legacyCallId(sessionId, 7);
    expect(request).toEqual({ jsonrpc: '2.0', id: `${callId}#1`, method: 'roots/list' });
    // Someone else's session answering first completes nothing.
    const stranger = await initializeRaw(second.mcpUrl);
    await post(second.mcpUrl, { jsonrpc: '2.0', id: request?.id, result: { roots: [] } }, { 'mcp-session-id': stranger });
    const answered = await post(
      second.mcpUrl,
      { jsonrpc: '2.0', id: request?.id, result: { roots: [{ uri: 'file:///work', name: 'work' }] } },
      { 'mcp-session-id': sessionId },
    );
    // spec S-77: a POSTed response is accepted with 202 and no body.
    expect(answered.status).toBe(202);
    await call.ended;
    expect(call.messages()[1]).toMatchObject({
      id: 7,
      result: { content: [{ type: 'text', text: JSON.stringify({ result: { roots: [{ uri: 'file:///work', name: 'work' }] } }) }] },
    });
    expect(log.answers.filter((answer) => answer.inputId === `${callId}#1`).map((answer) => answer.sessionId)).toEqual([stranger, sessionId]);
  });

  it('tells the executors when a legacy client POSTs notifications/roots/list_changed to the other replica (S-342)', async () => {
    const sessionId = await initializeRaw(first.mcpUrl);
    const changed = await post(
      second.mcpUrl,
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    );
    expect(changed.status).toBe(202);
    await eventually(() => (log.rootsChanged.includes(sessionId) ? true : undefined));
    expect(log.rootsChanged.filter((heard) => heard === sessionId)).toEqual([sessionId]);
  });

  it('sends an elicitation completion on the call’s stream, and on the GET stream held by the other replica when the client left the call before it got an event id (S-327)', async () => {
    const sessionId = await initializeRaw(first.mcpUrl);
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    const completion = (elicitationId: string) => ({ jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId } });
    const called = await post(
      second.mcpUrl,
      { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'complete_elicitation', arguments: { elicitationId: 'e-1' } } },
      headers,
    );
    expect(called.messages).toEqual([completion('e-1'), { jsonrpc: '2.0', id: 8, result: { content: [{ type: 'text', text: 'completed' }] } }]);

    const stream = await openStream(first.mcpUrl, { method: 'GET', headers });
    expect(stream.status).toBe(200);
    // The client leaves its call on replica B before the stream was primed: it holds no id to resume it with.
    const leave = new AbortController();
    const pending = fetch(second.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'complete_elicitation', arguments: { elicitationId: 'e-2', held: true } },
      }),
      signal: leave.signal,
    }).catch(() => undefined);
    const callId = legacyCallId(sessionId, 9);
    await eventually(() => log.calls.find((call) => call.callId === callId));
    leave.abort();
    await pending;
    await eventually(() => (clientLeft(second, callId) ? true : undefined));
    log.release(callId);
    // Still running on B (S-85), the call's completion goes to the session's GET stream on A.
    await eventually(() => (stream.messages().length > 0 ? true : undefined));
    expect(stream.messages()).toEqual([completion('e-2')]);
    await stream.close();
  });

  describe('a modern call that needs its client’s input (multi round-trip requests)', () => {
    const ROOTS = { roots: [{ uri: 'file:///work', name: 'work' }] };
    const callRoots = (url: string, id: number, params: Record<string, unknown>) =>
      post(
        url,
        {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: modernParams({ name: 'roots_by_round_trip', ...params }, { 'io.modelcontextprotocol/clientCapabilities': { roots: {} } }),
        },
        modernHeaders('tools/call', 'roots_by_round_trip'),
      );
    /** The first round, on replica A: the input requests and the sealed state. */
    const firstRound = async (args: Record<string, unknown>) => {
      const answer = await callRoots(first.mcpUrl, 1, { arguments: args });
      expect(answer.status).toBe(200);
      const result = (answer.messages[0] as { result: { requestState: string } }).result;
      return { answer, requestState: result.requestState };
    };

    it('answers input_required with a sealed state, and completes the retry sent to the other replica (S-60, S-69, §3.3.2)', async () => {
      const { answer, requestState } = await firstRound({ folder: 'work' });
      // spec S-62, S-70: the requests and the state, no caching hints.
      expect(answer.messages[0]).toEqual({
        jsonrpc: '2.0',
        id: 1,
        result: {
          resultType: 'input_required',
          inputRequests: { 'input-1': { method: 'roots/list' } },
          requestState: expect.stringMatching(/^[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+$/),
          _meta: { 'io.modelcontextprotocol/serverInfo': expect.objectContaining({ name: expect.any(String) }) },
        },
      });
      const retried = await callRoots(second.mcpUrl, 2, { arguments: { folder: 'work' }, inputResponses: { 'input-1': ROOTS }, requestState });
      expect(retried.messages[0]).toMatchObject({
        id: 2,
        result: { resultType: 'complete', content: [{ type: 'text', text: JSON.stringify({ arguments: { folder: 'work' }, roots: ROOTS }) }] },
      });
      // The executor got the answer with the retry; nothing was kept on either replica in between.
      expect(log.calls.at(-1)).toMatchObject({ name: 'roots_by_round_trip', inputResponses: { 'input-1': ROOTS } });
    });

    it('refuses a tampered state with -32602, and the tool does not run (S-65)', async () => {
      const { requestState } = await firstRound({ folder: 'work' });
      const parts = requestState.split('.');
      parts[3] = `${parts[3]?.startsWith('A') ? 'B' : 'A'}${parts[3]?.slice(1) ?? ''}`;
      const calls = log.calls.length;
      const refused = await callRoots(second.mcpUrl, 3, { arguments: { folder: 'work' }, inputResponses: { 'input-1': ROOTS }, requestState: parts.join('.') });
      expect(refused.messages[0]).toMatchObject({ id: 3, error: { code: -32602, message: expect.stringMatching(/^Invalid params: requestState /) } });
      expect(log.calls).toHaveLength(calls);
    });

    it('refuses a state replayed with other arguments with -32602 (S-66)', async () => {
      const { requestState } = await firstRound({ folder: 'work' });
      const calls = log.calls.length;
      const replayed = await callRoots(second.mcpUrl, 4, { arguments: { folder: 'secrets' }, inputResponses: { 'input-1': ROOTS }, requestState });
      expect(replayed.messages[0]).toMatchObject({ id: 4, error: { code: -32602, message: 'Invalid params: requestState belongs to another request' } });
      expect(log.calls).toHaveLength(calls);
    });
  });

  it('keeps every subscription when both replicas take subscribes of one session at the same time (compare-and-set)', async () => {
    const sessionId = await initializeRaw(first.mcpUrl);
    const uris = Array.from({ length: 40 }, (_, index) => `demo://race/${index}`);
    const answers = await Promise.all(
      uris.map((uri, index) =>
        post(
          index % 2 === 0 ? first.mcpUrl : second.mcpUrl,
          { jsonrpc: '2.0', id: index, method: 'resources/subscribe', params: { uri } },
          { 'mcp-session-id': sessionId },
        ),
      ),
    );
    for (const answer of answers) expect(answer.messages[0]).toMatchObject({ result: {} });
    const everywhere = (): true | undefined =>
      uris.every((uri) => first.app.get(SessionStore).isSubscribed(sessionId, uri) && second.app.get(SessionStore).isSubscribed(sessionId, uri))
        ? true
        : undefined;
    await eventually(everywhere);
  });

  it('delivers to a modern listener on the other replica exactly what its filter asked for, after the acknowledgement, tagged with its id', async () => {
    const listen = await openStream(second.mcpUrl, {
      method: 'POST',
      headers: modernHeaders('subscriptions/listen'),
      body: {
        jsonrpc: '2.0',
        id: 'watch-1',
        method: 'subscriptions/listen',
        params: modernParams({ notifications: { toolsListChanged: true, promptsListChanged: false, resourceSubscriptions: ['demo://guide', 'demo://guide'] } }),
      },
    });
    expect(listen.status).toBe(200);
    expect(listen.headers.get('content-type')).toBe('text/event-stream');
    const tag = { 'io.modelcontextprotocol/subscriptionId': 'watch-1' };
    // spec S-310: the acknowledgement comes first and reports what is honoured (no false flag, no repeat).
    await eventually(() => (listen.messages().length > 0 ? true : undefined));
    expect(listen.messages()[0]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true, resourceSubscriptions: ['demo://guide'] }, _meta: tag },
    });

    // Announced through replica A; only B holds the stream. First what the filter did not ask for (S-309)...
    const bus = first.app.get(MessageBus);
    bus.emit(resourceStore.resourceUpdated, { tenant: 'demo', uri: 'demo://logo' });
    bus.emit(resourceStore.listChanged, { tenant: 'demo', servers: [], lists: ['resources', 'prompts'] });
    bus.emit(toolExecutor.catalogChanged, { tenant: 'other', servers: ['default'] });
    bus.emit(toolExecutor.catalogChanged, { tenant: 'demo', servers: [] });
    bus.emit(toolExecutor.catalogChanged, { tenant: 'demo', servers: ['private'] });
    // ...then what it did: once the last is on the stream, anything unasked would be there too.
    bus.emit(resourceStore.resourceUpdated, { tenant: 'other', uri: 'demo://guide' });
    bus.emit(resourceStore.resourceUpdated, { tenant: 'demo', uri: 'demo://guide' });
    bus.emit(toolExecutor.catalogChanged, { tenant: 'demo', servers: ['default'] });
    await eventually(() => (listen.messages().some((message) => message.method === 'notifications/tools/list_changed') ? true : undefined));
    // spec S-311: every notification carries the subscription id.
    expect(listen.messages().slice(1)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'demo://guide', _meta: tag } },
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: tag } },
    ]);
    expect(first.app.get(ListenStreams).size).toBe(0);
    expect(second.app.get(ListenStreams).size).toBe(1);
    await listen.close();
    // spec S-315: the subscription lives as long as the request.
    await eventually(() => (second.app.get(ListenStreams).size === 0 ? true : undefined));
  });
});
