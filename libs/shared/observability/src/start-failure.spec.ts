import { describe, expect, it } from 'vitest';
import { ConfigError, StartupError } from '@mcp-platform/shared-config';
import { startFailureMessage } from './start-failure';

describe('startFailureMessage', () => {
  it('is the list of bad keys alone for a configuration error', () => {
    expect(startFailureMessage(new ConfigError(['PORT: expected a number', 'LOG_LEVEL: invalid']))).toBe(
      'invalid configuration:\n  - PORT: expected a number\n  - LOG_LEVEL: invalid',
    );
  });

  it('is the message alone for another startup error', () => {
    expect(startFailureMessage(new StartupError('data directory ./data is in use by process 42'))).toBe('data directory ./data is in use by process 42');
  });

  it('names the busy port and the key that moves it', () => {
    const inUse = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:3000'), { code: 'EADDRINUSE', port: 3000 });
    expect(startFailureMessage(inUse)).toBe('port 3000 is in use (set PORT to another port)');
    expect(startFailureMessage(inUse, { portKey: 'METRICS_PORT' })).toBe('port 3000 is in use (set METRICS_PORT to another port)');
  });

  it('keeps the stack of anything else (a bug to report)', () => {
    const bug = new TypeError('cannot read x of undefined');
    expect(startFailureMessage(bug)).toBe(bug.stack);
    expect(startFailureMessage('a string')).toBe('a string');
  });
});
