import { describe, expect, it } from 'vitest';
import { isLoopbackUri, redirectUriProblem } from './redirect-uri.policy';

describe(redirectUriProblem, () => {
  it.each([
    ['https://app.example.com/cb', 'web'],
    ['http://localhost:3000/cb', 'web'],
    ['http://127.0.0.1/cb', 'web'],
    ['http://[::1]:8080/cb', 'native'],
    ['com.example.app:/callback', 'native'],
    ['https://app.example.com/cb', 'native'],
  ] as const)('allows %s for a %s client', (uri, type) => {
    expect(redirectUriProblem(uri, type)).toBeUndefined();
  });

  it.each([
    ['http://app.example.com/cb', 'web', /loopback/],
    ['com.example.app:/callback', 'web', /https/],
    ['myapp:/callback', 'native', /reverse-domain/],
    ['https://app.example.com/cb#x', 'web', /fragment/],
    ['https://u:p@app.example.com/cb', 'web', /credentials/],
    ['not a url', 'web', /not a URL/],
  ] as const)('refuses %s for a %s client', (uri, type, reason) => {
    expect(redirectUriProblem(uri, type)).toMatch(reason);
  });
});

describe(isLoopbackUri, () => {
  it('recognises the loopback hosts', () => {
    expect(isLoopbackUri('http://localhost:1/cb')).toBe(true);
    expect(isLoopbackUri('http://127.0.0.1/cb')).toBe(true);
    expect(isLoopbackUri('http://[::1]/cb')).toBe(true);
    expect(isLoopbackUri('https://app.example.com/cb')).toBe(false);
    expect(isLoopbackUri('nope')).toBe(false);
  });
});
