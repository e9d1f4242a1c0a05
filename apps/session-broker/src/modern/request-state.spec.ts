import { describe, expect, it } from 'vitest';
import { generateRequestStateKey, parseRequestStateKey, parseRequestStateKeys } from '../config/request-state-keys';
import { argumentsDigest, canonicalJson, REQUEST_STATE_TTL_MS, type RequestStateBinding, RequestStates } from './request-state';

const binding = (overrides: Partial<RequestStateBinding> = {}): RequestStateBinding => ({
  principal: { subject: 'user-1', tenant: 'demo', clientId: 'client-1', anonymous: false },
  server: 'demo/default',
  method: 'tools/call',
  name: 'confirm_action',
  argumentsDigest: argumentsDigest({ action: 'delete', target: 'x' }),
  ...overrides,
});

const ROUND = { answers: { 'input-1': { action: 'accept', content: { confirm: true } } }, asked: ['input-2'] };

function setup(keys = [generateRequestStateKey('k1')]) {
  let now = 1_000_000;
  const states = new RequestStates(parseRequestStateKeys(keys), () => now);
  return { states, advance: (ms: number) => (now += ms) };
}

describe(RequestStates, () => {
  describe('open', () => {
    it('opens what it sealed for the same request, with the answers and the keys asked last', async () => {
      const { states } = setup();
      const sealed = await states.seal(binding(), ROUND);
      await expect(states.open(sealed, binding())).resolves.toEqual({ state: ROUND });
    });

    it('hides the answers from the client (the state is encrypted)', async () => {
      const { states } = setup();
      const sealed = await states.seal(binding(), { answers: { 'input-1': { action: 'accept', content: { secret: 'hunter2' } } }, asked: [] });
      expect(sealed.split('.')).toHaveLength(5);
      expect(Buffer.from(sealed.replace(/\./g, ''), 'base64url').toString('latin1')).not.toContain('hunter2');
    });

    it('refuses a state changed by the client (S-65)', async () => {
      const { states } = setup();
      const sealed = await states.seal(binding(), ROUND);
      const parts = sealed.split('.');
      const ciphertext = parts[3] ?? '';
      parts[3] = `${ciphertext.startsWith('A') ? 'B' : 'A'}${ciphertext.slice(1)}`;
      await expect(states.open(parts.join('.'), binding())).resolves.toMatchObject({ refused: 'invalid' });
      await expect(states.open('not a state', binding())).resolves.toMatchObject({ refused: 'invalid' });
      await expect(states.open('x'.repeat(200_000), binding())).resolves.toMatchObject({ refused: 'invalid' });
    });

    it('refuses a state after ten minutes (S-66)', async () => {
      const { states, advance } = setup();
      const sealed = await states.seal(binding(), ROUND);
      advance(REQUEST_STATE_TTL_MS - 1);
      await expect(states.open(sealed, binding())).resolves.toEqual({ state: ROUND });
      advance(1);
      await expect(states.open(sealed, binding())).resolves.toMatchObject({ refused: 'expired' });
    });

    it.each([
      ['another subject', binding({ principal: { subject: 'user-2', tenant: 'demo', clientId: 'client-1', anonymous: false } }), 'principal'],
      ['another client of the same user', binding({ principal: { subject: 'user-1', tenant: 'demo', clientId: 'client-2', anonymous: false } }), 'principal'],
      ['the anonymous caller', binding({ principal: { subject: 'user-1', tenant: 'demo', anonymous: true } }), 'principal'],
      ['another virtual server', binding({ server: 'demo/private' }), 'virtual server'],
      ['another method', binding({ method: 'prompts/get' }), 'method'],
      ['another tool', binding({ name: 'hash_text' }), 'name'],
      ['other arguments', binding({ argumentsDigest: argumentsDigest({ action: 'delete', target: 'y' }) }), 'arguments'],
    ])('refuses a state replayed by %s (S-66)', async (_case, other, field) => {
      const { states } = setup();
      const sealed = await states.seal(binding(), ROUND);
      await expect(states.open(sealed, other)).resolves.toEqual({ refused: 'mismatch', detail: `issued for another ${field}` });
    });

    it('opens a state sealed with an older key still listed, and seals with the first (rotation)', async () => {
      const old = generateRequestStateKey('old');
      const current = generateRequestStateKey('new');
      const before = await setup([old]).states.seal(binding(), ROUND);
      const { states } = setup([current, old]);
      await expect(states.open(before, binding())).resolves.toEqual({ state: ROUND });
      const after = await states.seal(binding(), ROUND);
      expect(JSON.parse(Buffer.from(after.split('.')[0] ?? '', 'base64url').toString())).toEqual({ alg: 'dir', enc: 'A256GCM', kid: 'new' });
    });

    it('refuses a state sealed with a key it does not hold, or with another secret under the same id', async () => {
      const foreign = await setup([generateRequestStateKey('elsewhere')]).states.seal(binding(), ROUND);
      const sameIdOtherSecret = await setup([generateRequestStateKey('k1')]).states.seal(binding(), ROUND);
      const { states } = setup([generateRequestStateKey('k1')]);
      await expect(states.open(foreign, binding())).resolves.toMatchObject({ refused: 'invalid', detail: expect.stringContaining('unknown key') });
      await expect(states.open(sameIdOtherSecret, binding())).resolves.toMatchObject({ refused: 'invalid' });
    });
  });
});

describe('argumentsDigest', () => {
  it('ignores the order of object keys, and counts absent arguments as {}', () => {
    expect(argumentsDigest({ a: 1, b: { c: [1, 2], d: 'x' } })).toBe(argumentsDigest({ b: { d: 'x', c: [1, 2] }, a: 1 }));
    expect(argumentsDigest(undefined)).toBe(argumentsDigest({}));
  });

  it('tells different values apart, array order included', () => {
    expect(argumentsDigest({ a: [1, 2] })).not.toBe(argumentsDigest({ a: [2, 1] }));
    expect(argumentsDigest({ a: '1' })).not.toBe(argumentsDigest({ a: 1 }));
  });
});

describe('canonicalJson', () => {
  it('sorts keys recursively and leaves out undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: undefined, c: [true, null] } })).toBe('{"a":{"c":[true,null]},"b":1}');
  });
});

describe('parseRequestStateKeys', () => {
  it('reads id:secret entries of 32 bytes', () => {
    const entry = generateRequestStateKey('k-1');
    const [key] = parseRequestStateKeys([entry]);
    expect(key?.id).toBe('k-1');
    expect(key?.secret).toHaveLength(32);
  });

  it.each(['k1', 'k1:', 'k1:short', `k 1:${'A'.repeat(43)}`, `:${'A'.repeat(43)}`, `k1:${'A'.repeat(44)}`])(
    'refuses %j without echoing the secret',
    (entry) => {
      expect(() => parseRequestStateKey(entry)).toThrow(/request state key/);
    },
  );

  it('refuses an id used twice', () => {
    expect(() => parseRequestStateKeys([generateRequestStateKey('k1'), generateRequestStateKey('k1')])).toThrow(/used twice/);
  });
});
