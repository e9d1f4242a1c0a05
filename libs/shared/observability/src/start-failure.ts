import { StartupError } from '@mcp-platform/shared-config';

/** What names the listen port in an app's environment (`PORT` for every app today). */
export interface StartFailureOptions {
  portKey?: string;
}

/**
 * What an operator reads when a start fails: the message alone for what they fix themselves (a bad
 * configuration, lists every key once; a busy port, names the key that moves it), the whole error with
 * its stack for anything else (a bug to report).
 */
export function startFailureMessage(error: unknown, options: StartFailureOptions = {}): string {
  if (error instanceof StartupError) return error.message;
  if (isAddressInUse(error)) return `port ${error.port} is in use (set ${options.portKey ?? 'PORT'} to another port)`;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/**
 * Ends a process whose start failed (`main().catch(exitOnStartFailure)`): prints `startFailureMessage`
 * to stderr and exits 1.
 */
export function exitOnStartFailure(error: unknown, options: StartFailureOptions = {}): never {
  process.stderr.write(`${startFailureMessage(error, options)}\n`);
  process.exit(1);
}

/** Node's `listen` error when another process holds the address. */
function isAddressInUse(error: unknown): error is NodeJS.ErrnoException & { port: number } {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === 'EADDRINUSE' && typeof (error as { port?: unknown }).port === 'number';
}
