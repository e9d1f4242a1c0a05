import { describe, expect, it } from 'vitest';
import type { RawResponse } from '../mcp/raw-http';
import { checkHostileAnswer, generateHostileCases, HOSTILE_CATEGORIES, type HostileTarget, INITIALIZE_PARAMS_LIMIT_BYTES } from './hostile-requests';

const target: HostileTarget = {
  url: 'http://127.0.0.1:4000/demo/default/mcp',
  session: { sessionId: 'session-1', protocolVersion: '2025-11-25' },
  endedSessionId: 'ended-1',
  bodyLimitBytes: 1024 * 1024,
  textTool: { name: 'hash_text', argument: 'text' },
};

function answer(status: number, body: unknown, contentType = 'application/json'): RawResponse {
  const text = body === undefined ? '' : JSON.stringify(body);
  return { status, headers: {}, body: text, contentType, messages: body === undefined ? [] : [body] };
}

describe('generateHostileCases', () => {
  it('generates the same cases for the same seed', () => {
    const first = generateHostileCases(target, { seed: 11, count: 300 });
    const second = generateHostileCases(target, { seed: 11, count: 300 });
    expect(second).toEqual(first);
  });

  it('covers every category and caps the expensive ones when asked for 1,000 cases', () => {
    const cases = generateHostileCases(target, { seed: 3, count: 1_000 });
    expect(cases).toHaveLength(1_000);
    expect(new Set(cases.map((hostile) => hostile.category))).toEqual(new Set(HOSTILE_CATEGORIES));
    expect(cases.filter((hostile) => hostile.category === 'body-over-limit')).toHaveLength(6);
  });

  it('makes initializes whose params straddle the platform’s limit: the accepted ones under it, the oversized ones over it, from the attacker’s address', () => {
    const cases = generateHostileCases({ ...target, bodyLimitBytes: 4 * 1024 * 1024, attackerAddress: '127.0.0.2' }, { seed: 9, count: 2_000 });
    const paramsBytes = (body: string | Buffer | undefined) => Buffer.byteLength(JSON.stringify((JSON.parse(String(body)) as { params: unknown }).params));
    const accepted = cases.filter((hostile) => hostile.category === 'initialize-exhaustion' && hostile.expect.status.includes(200));
    const oversized = cases.filter((hostile) => hostile.category === 'initialize-oversized');
    expect(accepted.length).toBeGreaterThan(50);
    expect(oversized).toHaveLength(30);
    for (const hostile of accepted) expect(paramsBytes(hostile.request.body)).toBeLessThanOrEqual(INITIALIZE_PARAMS_LIMIT_BYTES);
    for (const hostile of oversized) expect(paramsBytes(hostile.request.body)).toBeGreaterThan(INITIALIZE_PARAMS_LIMIT_BYTES);
    for (const hostile of [...accepted, ...oversized]) expect(hostile.request.localAddress).toBe('127.0.0.2');
  });

  it('keeps every body but the over-limit ones within the body limit', () => {
    const cases = generateHostileCases(target, { seed: 5, count: 1_000 });
    for (const hostile of cases) {
      const size = Buffer.byteLength(hostile.request.body ?? '');
      if (hostile.category === 'body-over-limit') expect(size).toBeGreaterThan(target.bodyLimitBytes);
      else expect(size).toBeLessThanOrEqual(target.bodyLimitBytes);
    }
  });
});

describe('checkHostileAnswer', () => {
  it('accepts the prescribed status and error code', () => {
    expect(checkHostileAnswer({ status: [400], codes: [-32700] }, answer(400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'x' } }))).toEqual(
      [],
    );
  });

  it('reports a wrong status and a wrong code', () => {
    const problems = checkHostileAnswer({ status: [400], codes: [-32700] }, answer(500, { jsonrpc: '2.0', id: null, error: { code: -32601, message: 'x' } }));
    expect(problems).toHaveLength(2);
  });

  it('reports an id that was not echoed', () => {
    const problems = checkHostileAnswer({ status: [200], echoId: 'abc' }, answer(200, { jsonrpc: '2.0', id: 'abd', result: {} }));
    expect(problems).toEqual([expect.stringContaining('id not echoed')]);
  });

  it('requires data.supported on an unsupported-version error', () => {
    const expectation = { status: [400], codes: [-32022], supportedIncludes: '2026-07-28' };
    expect(
      checkHostileAnswer(expectation, answer(400, { jsonrpc: '2.0', id: 1, error: { code: -32022, message: 'x', data: { supported: ['2026-07-28'] } } })),
    ).toEqual([]);
    expect(checkHostileAnswer(expectation, answer(400, { jsonrpc: '2.0', id: 1, error: { code: -32022, message: 'x' } }))).toHaveLength(1);
  });

  it('reports an internal error whatever the status', () => {
    expect(checkHostileAnswer({ status: [200, 400] }, answer(200, { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'boom' } }))).toHaveLength(1);
  });

  it('rejects a 202 that carries a body', () => {
    expect(checkHostileAnswer({ status: [202] }, answer(202, { ok: true }))).toHaveLength(1);
  });
});
