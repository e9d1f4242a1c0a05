import { readFile } from 'node:fs/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A process's resident set size in bytes, from `/proc/<pid>/status` (Linux): how much memory it holds now. */
export async function processRssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (!match?.[1]) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/**
 * This process's resident set size (and V8 heap in use) in bytes after a full garbage collection, so
 * garbage does not count.
 * V8's `gc()` is reachable without `--expose-gc` on the command line: the flag is set at run time and the
 * function taken from a fresh context. Whether it ran is reported, so a caller can widen its bound.
 */
export function ownRssAfterGc(): { rssBytes: number; heapUsedBytes: number; collected: boolean } {
  let collected = false;
  try {
    setFlagsFromString('--expose_gc');
    const gc = runInNewContext('gc') as (() => void) | undefined;
    if (typeof gc === 'function') {
      gc();
      collected = true;
    }
  } catch {
    collected = false;
  }
  const usage = process.memoryUsage();
  return { rssBytes: usage.rss, heapUsedBytes: usage.heapUsed, collected };
}
