import { describe, expect, it } from 'vitest';
import { type ClientChannel, InputRequired, PendingClientRequests, RoundTripClient, SessionClientRequests, UnreachableClient } from './client-requests';
import { ClientCapabilityMissing, ClientRequestFailed, UnknownElicitation } from './tool-context';

const SESSION = 'session-1';
/** Another session the channel says was asked too (a task's owner awaiting it there). */
const AWAITING_SESSION = 'session-2';

function setup(capabilities: Record<string, unknown>) {
  const sent: Array<Parameters<ClientChannel['request']>[0]> = [];
  const completed: string[] = [];
  const settled: string[] = [];
  const pending = new PendingClientRequests();
  const abort = new AbortController();
  const channel: ClientChannel = {
    request: (request) => void sent.push(request),
    elicitationCompleted: (elicitationId) => void completed.push(elicitationId),
    settled: (inputId) => void settled.push(inputId),
    alsoAnsweredBy: (sessionId) => sessionId === AWAITING_SESSION,
  };
  const client = new SessionClientRequests('l-call', SESSION, capabilities, channel, pending, abort.signal);
  const answer = (inputId: string, outcome: { result: Record<string, unknown> } | { error: { code: number; message: string } }, sessionId = SESSION) =>
    pending.answer({ callId: 'l-call', inputId, sessionId, outcome });
  return { client, sent, completed, settled, pending, abort, answer };
}

const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'test-model', stopReason: 'endTurn' };

describe('SessionClientRequests', () => {
  it('sends each request with a fresh id naming the call and resolves with the validated answer', async () => {
    const { client, sent, settled, answer } = setup({ sampling: {}, roots: {} });
    const sampled = client.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }], maxTokens: 10 });
    const roots = client.listRoots();
    await Promise.resolve();
    expect(settled).toEqual([]);
    expect(sent).toEqual([
      {
        inputId: 'l-call#1',
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }], maxTokens: 10 },
      },
      { inputId: 'l-call#2', method: 'roots/list' },
    ]);
    answer('l-call#2', { result: { roots: [{ uri: 'file:///work', name: 'work' }] } });
    answer('l-call#1', { result: SAMPLED });
    await expect(sampled).resolves.toMatchObject({ model: 'test-model', content: { text: 'hi' } });
    await expect(roots).resolves.toEqual({ roots: [{ uri: 'file:///work', name: 'work' }] });
    // Each request settles once answered, in the order the answers came.
    expect(settled).toEqual(['l-call#2', 'l-call#1']);
  });

  it.each([
    ['sampling, undeclared', {}, (client: SessionClientRequests) => client.createMessage({ messages: [], maxTokens: 1 }), 'sampling', { sampling: {} }],
    [
      'sampling with tools, without sampling.tools (S-331)',
      { sampling: {} },
      (client: SessionClientRequests) => client.createMessage({ messages: [], maxTokens: 1, tools: [{ name: 't', inputSchema: { type: 'object' } }] }),
      'sampling with tools',
      { sampling: { tools: {} } },
    ],
    [
      'elicitation, undeclared',
      { sampling: {} },
      (client: SessionClientRequests) => client.elicit({ message: 'm', requestedSchema: { type: 'object', properties: {} } }),
      'elicitation',
      { elicitation: {} },
    ],
    [
      'URL elicitation with `elicitation: {}` (form only, S-316)',
      { elicitation: {} },
      (client: SessionClientRequests) => client.elicit({ mode: 'url', message: 'm', url: 'https://example.com/x', elicitationId: 'e1' }),
      'elicitation in url mode',
      { elicitation: { url: {} } },
    ],
    [
      'form elicitation when only url is declared',
      { elicitation: { url: {} } },
      (client: SessionClientRequests) => client.elicit({ message: 'm', requestedSchema: { type: 'object', properties: {} } }),
      'elicitation in form mode',
      { elicitation: { form: {} } },
    ],
    ['roots, undeclared', { elicitation: {} }, (client: SessionClientRequests) => client.listRoots(), 'roots', { roots: {} }],
  ])('refuses %s without sending anything, naming what is missing as capabilities spell it', async (_case, capabilities, ask, capability, required) => {
    const { client, sent } = setup(capabilities);
    await expect(ask(client)).rejects.toEqual(new ClientCapabilityMissing(capability, required));
    expect(client.missingCapabilities()).toEqual(required);
    expect(sent).toEqual([]);
  });

  it('allows form elicitation with `elicitation: {}` and both modes when both are declared', async () => {
    for (const capabilities of [{ elicitation: {} }, { elicitation: { form: {}, url: {} } }]) {
      const { client, sent, answer } = setup(capabilities);
      const asked = client.elicit({ message: 'name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
      answer('l-call#1', { result: { action: 'accept', content: { name: 'Ada' } } });
      await expect(asked).resolves.toEqual({ action: 'accept', content: { name: 'Ada' } });
      expect(sent).toHaveLength(1);
    }
  });

  it("turns the client's JSON-RPC error, and an answer that is not the expected result, into ClientRequestFailed", async () => {
    const { client, answer } = setup({ sampling: {} });
    const rejected = client.createMessage({ messages: [], maxTokens: 1 });
    answer('l-call#1', { error: { code: -1, message: 'User rejected sampling request' } });
    await expect(rejected).rejects.toEqual(new ClientRequestFailed(-1, 'User rejected sampling request'));
    const malformed = client.createMessage({ messages: [], maxTokens: 1 });
    answer('l-call#2', { result: { role: 'assistant' } });
    await expect(malformed).rejects.toMatchObject({ name: 'ClientRequestFailed', code: -32602 });
  });

  it('takes an answer only from the call’s own session', async () => {
    const { client, pending, answer } = setup({ roots: {} });
    let settled = false;
    const roots = client.listRoots().finally(() => (settled = true));
    answer('l-call#1', { result: { roots: [] } }, 'another-session');
    await Promise.resolve();
    expect(settled).toBe(false);
    expect(pending.size).toBe(1);
    answer('l-call#1', { result: { roots: [] } });
    await expect(roots).resolves.toEqual({ roots: [] });
    expect(pending.size).toBe(0);
  });

  it('also takes an answer from a session the channel says was asked too (a task awaited elsewhere by its owner)', async () => {
    const { client, answer } = setup({ roots: {} });
    const roots = client.listRoots();
    answer('l-call#1', { result: { roots: [{ uri: 'file:///x' }] } }, AWAITING_SESSION);
    await expect(roots).resolves.toEqual({ roots: [{ uri: 'file:///x' }] });
  });

  it('stops waiting when the call stops (cancel, timeout)', async () => {
    const { client, pending, settled, abort } = setup({ roots: {} });
    const roots = client.listRoots();
    abort.abort(new Error('cancelled'));
    await expect(roots).rejects.toThrow('cancelled');
    expect(pending.size).toBe(0);
    expect(settled).toEqual(['l-call#1']);
  });

  describe('onRootsChanged', () => {
    it('tells every listener of a client that declared roots.listChanged, until it stops listening (S-342)', () => {
      const { client } = setup({ roots: { listChanged: true } });
      const heard: string[] = [];
      const stopFirst = client.onRootsChanged(() => void heard.push('first'));
      client.onRootsChanged(() => void heard.push('second'));
      client.rootsChanged();
      stopFirst();
      client.rootsChanged();
      expect(heard).toEqual(['first', 'second', 'second']);
    });

    it('never calls the listener of a client that did not declare roots.listChanged', () => {
      for (const capabilities of [{}, { roots: {} }, { roots: { listChanged: false } }]) {
        const { client } = setup(capabilities);
        let heard = 0;
        const stop = client.onRootsChanged(() => void heard++);
        client.rootsChanged();
        stop();
        expect(heard).toBe(0);
      }
    });

    it('goes on with the other listeners when one throws or rejects', async () => {
      const { client } = setup({ roots: { listChanged: true } });
      let heard = 0;
      client.onRootsChanged(() => {
        throw new Error('listener broke');
      });
      client.onRootsChanged(() => Promise.reject(new Error('listener rejected')));
      client.onRootsChanged(() => void heard++);
      expect(() => client.rootsChanged()).not.toThrow();
      await new Promise((resolve) => setImmediate(resolve));
      expect(heard).toBe(1);
    });
  });

  describe('completeElicitation', () => {
    const URL_ELICITATION = { mode: 'url' as const, message: 'Connect your account', url: 'https://example.com/connect', elicitationId: 'elicitation-7' };

    it('sends the completion of a URL-mode elicitation the call sent, once (S-327)', async () => {
      const { client, completed, answer } = setup({ elicitation: { url: {} } });
      const asked = client.elicit(URL_ELICITATION);
      answer('l-call#1', { result: { action: 'accept' } });
      await expect(asked).resolves.toEqual({ action: 'accept' });
      client.completeElicitation('elicitation-7');
      expect(completed).toEqual(['elicitation-7']);
      expect(() => client.completeElicitation('elicitation-7')).toThrow(UnknownElicitation);
      expect(completed).toEqual(['elicitation-7']);
    });

    it('refuses, sending nothing, an id the call never sent, one of a form elicitation, and one the client was never asked', async () => {
      const { client, completed } = setup({ elicitation: { form: {} } });
      void client.elicit({ message: 'name?', requestedSchema: { type: 'object', properties: {} } });
      // URL mode is not declared: the request is refused before it is sent, so there is nothing to complete.
      await expect(client.elicit(URL_ELICITATION)).rejects.toBeInstanceOf(ClientCapabilityMissing);
      for (const elicitationId of ['elicitation-7', 'never-sent']) {
        expect(() => client.completeElicitation(elicitationId)).toThrow(new UnknownElicitation(elicitationId));
      }
      expect(completed).toEqual([]);
    });
  });
});

describe('RoundTripClient', () => {
  const FORM = { message: 'name?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } } } };

  it('resolves a request the input responses answer with the validated answer', async () => {
    const client = new RoundTripClient({ roots: {} }, { 'input-1': { roots: [{ uri: 'file:///work', name: 'work' }] } });
    await expect(client.listRoots()).resolves.toEqual({ roots: [{ uri: 'file:///work', name: 'work' }] });
    expect(client.inputRequests()).toBeUndefined();
  });

  it('records a request the input responses lack under input-<n> and rejects with InputRequired', async () => {
    const client = new RoundTripClient({ elicitation: {}, roots: {} }, { 'input-1': { action: 'accept', content: { name: 'Ada' } } });
    await expect(client.elicit(FORM)).resolves.toEqual({ action: 'accept', content: { name: 'Ada' } });
    await expect(client.listRoots()).rejects.toEqual(new InputRequired('input-2'));
    expect(client.inputRequests()).toEqual({ 'input-2': { method: 'roots/list' } });
  });

  it('collects the requests asked together, each under its own key (S-63)', async () => {
    const client = new RoundTripClient({ elicitation: {}, sampling: {} }, {});
    const asked = Promise.all([
      client.elicit(FORM),
      client.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 }),
    ]);
    await expect(asked).rejects.toBeInstanceOf(InputRequired);
    expect(client.inputRequests()).toEqual({
      'input-1': { method: 'elicitation/create', params: FORM },
      'input-2': { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 } },
    });
  });

  it('asks a URL-mode elicitation without elicitationId, which the modern era removed (S-320)', async () => {
    const client = new RoundTripClient({ elicitation: { url: {} } }, {});
    await expect(client.elicit({ mode: 'url', message: 'Sign in', url: 'https://example.com/connect', elicitationId: 'e1' })).rejects.toBeInstanceOf(
      InputRequired,
    );
    expect(client.inputRequests()).toEqual({
      'input-1': { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in', url: 'https://example.com/connect' } },
    });
  });

  it('refuses what the request did not declare without recording a request, and gathers what was missing (S-64)', async () => {
    const client = new RoundTripClient({ elicitation: {} }, {});
    await expect(client.listRoots()).rejects.toEqual(new ClientCapabilityMissing('roots', { roots: {} }));
    await expect(client.elicit({ mode: 'url', message: 'm', url: 'https://example.com/x', elicitationId: 'e1' })).rejects.toEqual(
      new ClientCapabilityMissing('elicitation in url mode', { elicitation: { url: {} } }),
    );
    expect(client.inputRequests()).toBeUndefined();
    expect(client.missingCapabilities()).toEqual({ roots: {}, elicitation: { url: {} } });
  });

  it('turns an answer that is not the result the request asked for into ClientRequestFailed (-32602, S-68)', async () => {
    const client = new RoundTripClient({ roots: {} }, { 'input-1': { action: 'accept' } });
    await expect(client.listRoots()).rejects.toMatchObject({ name: 'ClientRequestFailed', code: -32602 });
  });

  it('never hears roots changes and completes elicitations as a no-op, both removed in the modern era (S-342, S-327)', () => {
    const client = new RoundTripClient({ roots: { listChanged: true }, elicitation: { url: {} } }, {});
    let heard = 0;
    client.onRootsChanged(() => void heard++)();
    expect(() => client.completeElicitation('elicitation-7')).not.toThrow();
    expect(heard).toBe(0);
    expect(client.inputRequests()).toBeUndefined();
  });

  it('leaves no unhandled rejection behind when a tool drops a refused request', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      const client = new RoundTripClient({ roots: {} }, {});
      const dropped = client.listRoots();
      await new Promise((resolve) => setImmediate(resolve));
      await expect(dropped).rejects.toBeInstanceOf(InputRequired);
    } finally {
      process.off('unhandledRejection', listener);
    }
    expect(unhandled).toEqual([]);
  });
});

describe('UnreachableClient', () => {
  it('refuses every request', async () => {
    const client = new UnreachableClient({ sampling: {}, elicitation: {}, roots: {} });
    await expect(client.createMessage()).rejects.toBeInstanceOf(ClientCapabilityMissing);
    await expect(client.elicit()).rejects.toBeInstanceOf(ClientCapabilityMissing);
    await expect(client.listRoots()).rejects.toBeInstanceOf(ClientCapabilityMissing);
    expect(() => client.completeElicitation('e1')).toThrow(UnknownElicitation);
  });
});
