import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { StartupError } from '@mcp-platform/shared-config';

/** The lock file: who holds the directory (pid, host, since when). */
export const LOCK_FILE = 'platform.lock';
/** PGlite's own folder inside the data directory (the secrets sit beside it). */
export const DATABASE_FOLDER = 'pglite';

/** What a lock file says about its holder. */
interface LockHolder {
  pid: number;
  hostname: string;
  startedAt: string;
}

/** Directories this process holds, so a second platform in the same process is refused too. */
const heldInThisProcess = new Set<string>();

/** Another process (or platform in this process) holds the data directory. */
export class DataDirectoryInUseError extends StartupError {
  constructor(path: string, holder: LockHolder) {
    const who = holder.hostname === hostname() ? `process ${holder.pid}` : `process ${holder.pid} on host ${holder.hostname}`;
    super(
      `data directory ${path} is in use by ${who} (since ${holder.startedAt}): stop it first, or set DATA_DIR to another directory ` +
        `(memory:// keeps nothing). If no such process runs, delete ${join(path, LOCK_FILE)}.`,
    );
    this.name = 'DataDirectoryInUseError';
  }
}

/** How the directory's processes are checked; injected so tests decide which pids are alive. */
export interface ProcessProbe {
  /** This process's id. */
  pid: number;
  /** This process's user id (absent where there is none: Windows). */
  uid?: number;
  /** Whether a process with this id runs on this host. */
  isAlive(pid: number): boolean;
}

const currentUid = process.getuid?.();

const NODE_PROCESSES: ProcessProbe = {
  pid: process.pid,
  ...(currentUid === undefined ? {} : { uid: currentUid }),
  isAlive(pid) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      // EPERM: it exists, under another user.
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  },
};

/**
 * The embedded platform's data directory (DESIGN.md §5): PGlite's database in `pglite/`, the secrets
 * the platform generates once and must keep (the demo user's password, the key sealing request
 * states) as owner-only files beside it, and a lock file so that one process at a time opens it: PGlite
 * takes no lock of its own, and two processes writing one database corrupt it.
 *
 * The lock names its holder's pid; a lock whose process is gone (a crash, a kill -9) is stale and taken
 * over, so a restart never needs a hand. Two processes taking over the same stale lock at the very same
 * moment could both succeed: acceptable for a developer's directory, not a cluster's (which uses
 * PostgreSQL).
 */
export class DataDirectory {
  private released = false;

  private constructor(
    /** The directory, absolute. */
    readonly path: string,
    /** Where PGlite keeps its files. */
    readonly databasePath: string,
    private readonly lock: string,
  ) {}

  /**
   * Creates the directory when missing, makes it owner-only (it may have existed, made by hand with the
   * usual 0755: the database holds password hashes, client secrets' hashes and, unless encrypted, the
   * signing keys) and takes its lock. Throws `DataDirectoryInUseError`, or a `StartupError` for a
   * directory of another user (who could plant the secrets the platform then uses).
   */
  static open(path: string, processes: ProcessProbe = NODE_PROCESSES): DataDirectory {
    const directory = resolve(path);
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const stats = statSync(directory);
    if (processes.uid !== undefined && stats.uid !== processes.uid) {
      throw new StartupError(`data directory ${directory} belongs to another user (uid ${stats.uid}): use a directory of your own (DATA_DIR)`);
    }
    if ((stats.mode & 0o077) !== 0) chmodSync(directory, 0o700);
    const lock = join(directory, LOCK_FILE);
    takeLock(directory, lock, processes);
    heldInThisProcess.add(directory);
    // A directory PGlite used directly (DATA_DIR before the secrets moved in beside it) stays usable.
    const databasePath = existsSync(join(directory, 'PG_VERSION')) ? directory : join(directory, DATABASE_FOLDER);
    return new DataDirectory(directory, databasePath, lock);
  }

  /**
   * The secret stored under `name`, generated (by `generate`) and written owner-only (0600) the first
   * time: the platform keeps it across restarts, and the operator can read it there. An existing file
   * is read only if it is a regular file (a symbolic link is refused, not followed: the demo password is
   * printed at every start, so a planted link would print another file) and is made owner-only.
   */
  secret(name: string, generate: () => string): string {
    const file = join(this.path, name);
    try {
      // `wx` (O_EXCL) fails on any existing entry, a symbolic link included: nothing is written through one.
      const descriptor = openSync(file, 'wx', 0o600);
      try {
        const value = generate();
        writeSync(descriptor, `${value}\n`);
        return value;
      } finally {
        closeSync(descriptor);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const stored = readOwnerOnly(file).trim();
    if (stored === '') throw new StartupError(`${file} is empty: delete it to generate a new one`);
    return stored;
  }

  /** Gives the directory up (at stop); safe to call twice. */
  release(): void {
    if (this.released) return;
    this.released = true;
    heldInThisProcess.delete(this.path);
    try {
      unlinkSync(this.lock);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/** A regular file's content, never through a symbolic link; a file others may read is made owner-only first. */
function readOwnerOnly(file: string): string {
  let descriptor: number;
  try {
    // O_NOFOLLOW: opening a symbolic link fails (ELOOP) instead of opening its target.
    descriptor = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw new StartupError(`${file} is a symbolic link, not a file the platform wrote: delete it to generate a new one`);
    throw error;
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) throw new StartupError(`${file} is not a regular file: delete it to generate a new one`);
    if ((stats.mode & 0o077) !== 0) fchmodSync(descriptor, 0o600);
    return readFileSync(descriptor, 'utf8');
  } finally {
    closeSync(descriptor);
  }
}

/** Creates the lock file, or takes over a stale one; refuses a live holder. */
function takeLock(directory: string, lock: string, processes: ProcessProbe): void {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const descriptor = openSync(lock, 'wx', 0o600);
      try {
        const holder: LockHolder = { pid: processes.pid, hostname: hostname(), startedAt: new Date().toISOString() };
        writeSync(descriptor, `${JSON.stringify(holder)}\n`);
      } finally {
        closeSync(descriptor);
      }
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readHolder(lock);
    if (holder !== undefined && holdsIt(holder, directory, processes)) throw new DataDirectoryInUseError(directory, holder);
    // Stale (its process is gone) or unreadable (a holder died while writing it): take it over.
    try {
      unlinkSync(lock);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new StartupError(`could not take the lock ${lock}: another process keeps taking it`);
}

function readHolder(lock: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(lock, 'utf8')) as Partial<LockHolder>;
    if (typeof parsed.pid !== 'number' || typeof parsed.hostname !== 'string') return undefined;
    return { pid: parsed.pid, hostname: parsed.hostname, startedAt: String(parsed.startedAt) };
  } catch {
    return undefined;
  }
}

/**
 * Whether the lock's holder is alive: another host's is assumed so (its processes cannot be checked);
 * this process's own pid holds it only if this process opened it (a container restarted with the same
 * pid left a stale lock).
 */
function holdsIt(holder: LockHolder, directory: string, processes: ProcessProbe): boolean {
  if (holder.hostname !== hostname()) return true;
  if (holder.pid === processes.pid) return heldInThisProcess.has(directory);
  return processes.isAlive(holder.pid);
}
