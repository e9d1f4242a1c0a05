import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_FOLDER, DataDirectory, DataDirectoryInUseError, LOCK_FILE, type ProcessProbe } from './data-directory';

/** This process (as this user, unless told another), plus the pids a test says are alive. */
function processes(alive: number[] = [], uid = process.getuid?.()): ProcessProbe {
  return { pid: process.pid, ...(uid === undefined ? {} : { uid }), isAlive: (pid) => alive.includes(pid) };
}

function writeLock(directory: string, holder: Record<string, unknown>): void {
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, LOCK_FILE), JSON.stringify(holder));
}

describe('DataDirectory', () => {
  let parent: string;
  let path: string;
  const opened: DataDirectory[] = [];

  beforeEach(() => {
    parent = mkdtempSync(join(tmpdir(), 'data-directory-'));
    path = join(parent, 'data');
  });

  afterEach(() => {
    for (const directory of opened.splice(0)) directory.release();
    rmSync(parent, { recursive: true, force: true });
  });

  const open = (probe: ProcessProbe = processes()): DataDirectory => {
    const directory = DataDirectory.open(path, probe);
    opened.push(directory);
    return directory;
  };

  describe('open', () => {
    it('creates the directory owner-only, takes the lock with this pid, and puts the database in pglite/', () => {
      const directory = open();
      expect(statSync(path).mode & 0o777).toBe(0o700);
      expect(JSON.parse(readFileSync(join(path, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid, hostname: hostname() });
      expect(directory.databasePath).toBe(join(path, DATABASE_FOLDER));
    });

    it('refuses a directory a live process holds, naming it and what to do', () => {
      writeLock(path, { pid: 4242, hostname: hostname(), startedAt: '2026-01-01T00:00:00.000Z' });
      expect(() => open(processes([4242]))).toThrow(DataDirectoryInUseError);
      expect(() => open(processes([4242]))).toThrow(
        `data directory ${path} is in use by process 4242 (since 2026-01-01T00:00:00.000Z): stop it first, or set DATA_DIR`,
      );
    });

    it('refuses a second platform of this process on the same directory', () => {
      open();
      expect(() => open()).toThrow(`is in use by process ${process.pid}`);
    });

    it('takes over the lock of a process that is gone, or an unreadable one', () => {
      writeLock(path, { pid: 4242, hostname: hostname(), startedAt: 'then' });
      open(processes([])).release();
      writeFileSync(join(path, LOCK_FILE), '{"pid":');
      expect(() => open(processes([]))).not.toThrow();
    });

    it("takes over a lock with this process's pid that this process does not hold (a restarted container)", () => {
      writeLock(path, { pid: process.pid, hostname: hostname(), startedAt: 'before the restart' });
      expect(() => open()).not.toThrow();
    });

    it('makes a directory that existed already owner-only: the database holds password hashes and signing keys', () => {
      mkdirSync(path, { mode: 0o755 });
      chmodSync(path, 0o755);
      open();
      expect(statSync(path).mode & 0o777).toBe(0o700);
    });

    it("refuses a directory of another user, who could plant the platform's secrets in it", () => {
      mkdirSync(path);
      const owner = statSync(path).uid;
      expect(() => open(processes([], owner + 1))).toThrow(`data directory ${path} belongs to another user (uid ${owner})`);
    });

    it('keeps a directory PGlite used directly as the database', () => {
      mkdirSync(path);
      writeFileSync(join(path, 'PG_VERSION'), '17\n');
      expect(open().databasePath).toBe(path);
    });
  });

  describe('release', () => {
    it('removes the lock, so the next open succeeds', () => {
      open().release();
      expect(existsSync(join(path, LOCK_FILE))).toBe(false);
      expect(() => open()).not.toThrow();
    });
  });

  describe('secret', () => {
    it('generates a secret once, owner-only, and reads it back afterwards', () => {
      const directory = open();
      let generated = 0;
      const generate = (): string => `secret-${++generated}`;
      expect(directory.secret('demo-user-password', generate)).toBe('secret-1');
      expect(directory.secret('demo-user-password', generate)).toBe('secret-1');
      expect(generated).toBe(1);
      expect(readFileSync(join(path, 'demo-user-password'), 'utf8')).toBe('secret-1\n');
      expect(statSync(join(path, 'demo-user-password')).mode & 0o777).toBe(0o600);
    });

    it('refuses a secret file that is a symbolic link: a planted link must not make it read, use and print another file', () => {
      const directory = open();
      const elsewhere = join(parent, 'not-a-secret');
      writeFileSync(join(parent, 'not-a-secret'), 'the content of another file\n');
      symlinkSync(elsewhere, join(path, 'demo-user-password'));
      expect(() => directory.secret('demo-user-password', () => 'x')).toThrow(`${join(path, 'demo-user-password')} is a symbolic link`);
    });

    it('makes a secret file that existed already owner-only', () => {
      const directory = open();
      writeFileSync(join(path, 'demo-user-password'), 'kept from before\n', { mode: 0o644 });
      chmodSync(join(path, 'demo-user-password'), 0o644);
      expect(directory.secret('demo-user-password', () => 'x')).toBe('kept from before');
      expect(statSync(join(path, 'demo-user-password')).mode & 0o777).toBe(0o600);
    });

    it('refuses an emptied secret file instead of using an empty secret', () => {
      const directory = open();
      writeFileSync(join(path, 'demo-user-password'), '\n');
      expect(() => directory.secret('demo-user-password', () => 'x')).toThrow(/is empty: delete it/);
    });
  });
});
