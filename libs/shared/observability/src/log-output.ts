import pino, { type DestinationStream } from 'pino';
import pinoPretty from 'pino-pretty';

/** How log records are written: JSON lines (machines, log shippers) or one readable line each (a person at a terminal). */
export type LogFormat = 'json' | 'pretty';

/** JSON unless stdout is a terminal: a person reads a terminal, everything else parses the lines. */
export function defaultLogFormat(stdoutIsTerminal = process.stdout.isTTY === true): LogFormat {
  return stdoutIsTerminal ? 'pretty' : 'json';
}

/**
 * The readable line of a record: `12:00:01 INFO (standalone): SeedService: seeded tenant demo`, other
 * fields on the same line. `tools/dev-cluster.mjs` prints the distributed apps' JSON the same way.
 */
export const PRETTY_LOG_OPTIONS = {
  translateTime: 'SYS:HH:MM:ss',
  ignore: 'pid,hostname,context',
  messageFormat: '{if context}{context}: {end}{msg}',
  singleLine: true,
} as const;

/**
 * Where records go: stdout, written synchronously, so a line logged before the ready banner is printed
 * before it (pino's default stream buffers and wrote boot records after the banner).
 */
export function logDestination(format: LogFormat): DestinationStream {
  if (format === 'json') return pino.destination({ dest: 1, sync: true });
  return pinoPretty({ ...PRETTY_LOG_OPTIONS, colorize: process.stdout.isTTY === true, sync: true, destination: 1 });
}
