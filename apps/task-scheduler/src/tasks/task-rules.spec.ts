import { describe, expect, it } from 'vitest';
import type { Principal } from '@mcp-platform/protocol-contracts';
import type { StoredTask } from '../store/stored-task';
import {
  boundTtlMs,
  concurrencyRetryAfterMs,
  decideClaim,
  isExpired,
  isOwnedBy,
  isRunning,
  MAX_RUNS,
  outstandingAnswers,
  ownerOf,
  statusOfOutcome,
  stillPending,
  toAdminTaskView,
  toTaskView,
} from './task-rules';

const limits = { defaultTtlMs: 3_600_000, maxTtlMs: 86_400_000, minTtlMs: 10_000 };
const alice: Principal = { subject: 'alice', tenant: 'acme', clientId: 'app', scopes: ['tools'], anonymous: false };
const anonymous: Principal = { subject: 'anonymous', tenant: 'acme', scopes: [], anonymous: true };
const NOW = Date.parse('2026-01-06T12:00:00.000Z');
/** The token of a claim other than the one that opened the run. */
const OTHER_CLAIM = 'claim-of-another-delivery';

function task(overrides: Partial<StoredTask> = {}): StoredTask {
  return {
    id: 'AAAAAAAAAAAAAAAAAAAAAA',
    tenant: 'acme',
    server: 'main',
    owner: ownerOf(alice, undefined),
    originSessionId: null,
    principal: alice,
    era: 'legacy',
    call: { tenant: 'acme', server: 'main', name: 'slow', protocolVersion: '2025-11-25' },
    idempotent: false,
    status: 'working',
    statusMessage: null,
    createdAt: new Date(NOW - 1_000),
    lastUpdatedAt: new Date(NOW - 1_000),
    ttlMs: 60_000,
    expiresAt: new Date(NOW + 59_000),
    pollIntervalMs: 1_000,
    outcome: null,
    inputRequests: null,
    inputResponses: {},
    runOpen: false,
    runsStarted: 0,
    attemptsSeen: 0,
    runToken: null,
    ...overrides,
  };
}

describe('boundTtlMs', () => {
  it('gives the default when the client asked for none', () => {
    expect(boundTtlMs(undefined, limits)).toBe(3_600_000);
  });

  it('keeps a TTL within the bounds as asked', () => {
    expect(boundTtlMs(120_000, limits)).toBe(120_000);
  });

  it('lowers a TTL above the maximum to the maximum', () => {
    expect(boundTtlMs(10 * 86_400_000, limits)).toBe(86_400_000);
  });

  it('raises a TTL below 10 s (0 included) to 10 s', () => {
    expect(boundTtlMs(0, limits)).toBe(10_000);
    expect(boundTtlMs(9_999, limits)).toBe(10_000);
  });
});

describe('ownerOf / isOwnedBy', () => {
  it('binds an authenticated caller’s task to the principal, not to its session', () => {
    const owner = ownerOf(alice, 'session-1');
    expect(owner).toEqual({ tenant: 'acme', subject: 'alice', clientId: 'app', anonymous: false, sessionId: null });
    expect(isOwnedBy(task({ owner }), ownerOf(alice, 'session-2'))).toBe(true);
  });

  it('binds an anonymous caller’s task to its session', () => {
    const owned = task({ owner: ownerOf(anonymous, 'session-1') });
    expect(isOwnedBy(owned, ownerOf(anonymous, 'session-1'))).toBe(true);
    expect(isOwnedBy(owned, ownerOf(anonymous, 'session-2'))).toBe(false);
    expect(isOwnedBy(owned, ownerOf(anonymous, undefined))).toBe(false);
  });

  it('refuses another subject, another client and another tenant', () => {
    const owned = task();
    expect(isOwnedBy(owned, ownerOf({ ...alice, subject: 'bob' }, undefined))).toBe(false);
    expect(isOwnedBy(owned, ownerOf({ ...alice, clientId: 'other-app' }, undefined))).toBe(false);
    expect(isOwnedBy(owned, ownerOf({ ...alice, clientId: undefined }, undefined))).toBe(false);
    expect(isOwnedBy(owned, ownerOf({ ...alice, tenant: 'globex' }, undefined))).toBe(false);
  });
});

describe('isExpired', () => {
  it('is true from the expiry instant on', () => {
    const expiring = task({ expiresAt: new Date(NOW) });
    expect(isExpired(expiring, NOW - 1)).toBe(false);
    expect(isExpired(expiring, NOW)).toBe(true);
  });
});

describe('toTaskView', () => {
  it('shows ISO timestamps, TTL and poll interval, and no absent status message', () => {
    expect(toTaskView(task())).toEqual({
      taskId: 'AAAAAAAAAAAAAAAAAAAAAA',
      status: 'working',
      createdAt: '2026-01-06T11:59:59.000Z',
      lastUpdatedAt: '2026-01-06T11:59:59.000Z',
      ttlMs: 60_000,
      pollIntervalMs: 1_000,
    });
  });

  it('shows the input requests only while the task waits for them', () => {
    const inputRequests = { name: { method: 'elicitation/create', params: {} } };
    expect(toTaskView(task({ status: 'input_required', statusMessage: 'The task needs input', inputRequests }))).toMatchObject({
      status: 'input_required',
      statusMessage: 'The task needs input',
      inputRequests,
    });
    expect(toTaskView(task({ status: 'cancelled', inputRequests }))).not.toHaveProperty('inputRequests');
  });
});

describe('toAdminTaskView', () => {
  it('adds the tool, the era, the owner and the run count to the view', () => {
    expect(toAdminTaskView(task({ runsStarted: 2, idempotent: true }))).toEqual({
      ...toTaskView(task()),
      server: 'main',
      tool: 'slow',
      era: 'legacy',
      owner: { subject: 'alice', clientId: 'app', anonymous: false },
      runsStarted: 2,
      idempotent: true,
    });
    expect(toAdminTaskView(task({ owner: ownerOf(anonymous, 'session-1') })).owner).toEqual({ subject: 'anonymous', anonymous: true });
  });

  it("never shows the call's arguments, the outcome or the owner's principal", () => {
    const secret = 'sk-secret-token';
    const view = toAdminTaskView(
      task({
        call: { tenant: 'acme', server: 'main', name: 'slow', arguments: { apiKey: secret }, protocolVersion: '2025-11-25' },
        principal: { ...alice, scopes: [secret] },
        status: 'completed',
        outcome: { result: { content: [{ type: 'text', text: secret }] } },
      }),
    );
    expect(JSON.stringify(view)).not.toContain(secret);
  });
});

describe('statusOfOutcome', () => {
  const toolError = { result: { content: [{ type: 'text', text: 'disk full' }], isError: true } };

  it('fails a task whose call ended with a wire error, with its message', () => {
    expect(statusOfOutcome('modern', { error: { code: 'INTERNAL', message: 'boom' } })).toEqual({ status: 'failed', statusMessage: 'boom' });
  });

  it('fails a legacy task whose tool reported an error (S-287), quoting the tool', () => {
    expect(statusOfOutcome('legacy', toolError)).toEqual({ status: 'failed', statusMessage: 'The tool reported an error: disk full' });
  });

  it('completes a modern task whose tool reported an error (S-303)', () => {
    expect(statusOfOutcome('modern', toolError)).toEqual({ status: 'completed', statusMessage: null });
  });

  it('completes a task with a plain result', () => {
    expect(statusOfOutcome('legacy', { result: { content: [] } })).toEqual({ status: 'completed', statusMessage: null });
  });

  it('shortens a long tool error text in the status message', () => {
    const { statusMessage } = statusOfOutcome('legacy', { result: { content: [{ type: 'text', text: 'x'.repeat(2_000) }], isError: true } });
    expect(statusMessage?.length).toBeLessThan(600);
  });
});

describe('decideClaim', () => {
  it('skips a task that is gone, expired, terminal or waiting for input without a run', () => {
    expect(decideClaim(undefined, NOW, 1, 3, OTHER_CLAIM)).toEqual({ kind: 'skip' });
    expect(decideClaim(task({ expiresAt: new Date(NOW) }), NOW, 1, 3, OTHER_CLAIM)).toEqual({ kind: 'skip' });
    for (const status of ['completed', 'failed', 'cancelled', 'input_required'] as const)
      expect(decideClaim(task({ status }), NOW, 1, 3, OTHER_CLAIM)).toEqual({ kind: 'skip' });
  });

  it('fails a task past the queue’s attempts, naming them', () => {
    expect(decideClaim(task({ idempotent: true }), NOW, 4, 3, OTHER_CLAIM)).toEqual({
      kind: 'fail',
      statusMessage: "The task's work was delivered 3 times and never finished",
    });
  });

  it('runs again an idempotent task whose run was cut short', () => {
    expect(decideClaim(task({ runOpen: true, idempotent: true, runsStarted: 1 }), NOW, 2, 3, OTHER_CLAIM)).toEqual({ kind: 'run' });
  });

  it('fails an idempotent task whose runs were cut short MAX_RUNS times, however many deliveries are left', () => {
    const decision = decideClaim(task({ runOpen: true, idempotent: true, runsStarted: MAX_RUNS }), NOW, 5, 1_000, OTHER_CLAIM);
    expect(decision).toEqual({ kind: 'fail', statusMessage: `The task was started ${MAX_RUNS} times and its worker stopped before it finished each time` });
  });

  it('waits longer between concurrency retries, up to 30 s', () => {
    expect([1, 2, 10, 30, 500].map(concurrencyRetryAfterMs)).toEqual([1_000, 2_000, 10_000, 30_000, 30_000]);
  });

  it('fails a non-idempotent task whose run was cut short, saying why', () => {
    const decision = decideClaim(task({ runOpen: true, idempotent: false }), NOW, 2, 3, OTHER_CLAIM);
    expect(decision).toMatchObject({ kind: 'fail', statusMessage: expect.stringContaining('not idempotent') as string });
  });

  it('answers run again to the claim that opened the run, however it looks otherwise (its answer was lost)', () => {
    const open = task({ runOpen: true, idempotent: false, runsStarted: 1, runToken: 'claim-1' });
    expect(decideClaim(open, NOW, 1, 3, 'claim-1')).toEqual({ kind: 'run', again: true });
    expect(decideClaim(open, NOW, 1, 3, 'claim-2')).toMatchObject({ kind: 'fail' });
  });

  it('runs a working task nobody runs', () => {
    expect(decideClaim(task(), NOW, 1, 3, OTHER_CLAIM)).toEqual({ kind: 'run' });
  });

  it('treats a legacy run that died waiting for its client (input_required, run open) as cut short (S-286)', () => {
    expect(isRunning(task({ status: 'input_required', runOpen: true }))).toBe(true);
    expect(isRunning(task({ status: 'input_required', runOpen: false }))).toBe(false);
    expect(decideClaim(task({ status: 'input_required', runOpen: true, idempotent: true, runsStarted: 1 }), NOW, 2, 3, OTHER_CLAIM)).toEqual({ kind: 'run' });
    expect(decideClaim(task({ status: 'input_required', runOpen: true, idempotent: false, runsStarted: 1 }), NOW, 2, 3, OTHER_CLAIM)).toMatchObject({
      kind: 'fail',
    });
  });
});

describe('outstandingAnswers', () => {
  it('keeps the answers to keys the task asks and ignores the others (S-301)', () => {
    expect(outstandingAnswers({ a: {}, b: {} }, { a: 1, c: 3 })).toEqual({ a: 1 });
  });

  it('keeps nothing when the task asks nothing', () => {
    expect(outstandingAnswers(null, { a: 1 })).toEqual({});
  });

  it('does not take inherited keys for asked ones, and keeps a `__proto__` key a key', () => {
    expect(outstandingAnswers({ a: {} }, JSON.parse('{"__proto__": 1, "toString": 2}') as Record<string, unknown>)).toEqual({});
    const answered = outstandingAnswers(
      JSON.parse('{"__proto__": {}}') as Record<string, unknown>,
      JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>,
    );
    expect(Object.getPrototypeOf(answered)).toBe(Object.prototype);
    expect(Object.keys(answered)).toEqual(['__proto__']);
  });
});

describe('stillPending', () => {
  it('keeps the requests the answers leave open, and none once every request is answered (SEP-2663 partial fulfillment)', () => {
    const asked = { first: { method: 'elicitation/create' }, second: { method: 'elicitation/create' } };
    expect(stillPending(asked, { first: 1 })).toEqual({ second: { method: 'elicitation/create' } });
    expect(stillPending(asked, { first: 1, second: 2 })).toBeUndefined();
    expect(stillPending(null, {})).toBeUndefined();
  });
});
