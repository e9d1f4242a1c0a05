import { LoggingLevelSchema } from '@modelcontextprotocol/core';
import type { z } from 'zod';

type LoggingLevel = z.infer<typeof LoggingLevelSchema>;

/** RFC 5424 severities in increasing order (S-232). */
export const LOGGING_LEVELS: readonly LoggingLevel[] = LoggingLevelSchema.options;

const rank: ReadonlyMap<string, number> = new Map(LOGGING_LEVELS.map((level, index) => [level, index]));

/** True for one of the eight level names. */
export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && rank.has(value);
}

/** Whether a message at `level` passes a minimum of `minimum` (S-233, S-235). */
export function isLevelAtLeast(level: LoggingLevel, minimum: LoggingLevel): boolean {
  return (rank.get(level) ?? 0) >= (rank.get(minimum) ?? 0);
}
